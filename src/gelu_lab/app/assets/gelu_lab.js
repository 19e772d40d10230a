// GELU Lab's clientside callbacks: dash_clientside.gelu_lab, named in the pages by
// ClientsideFunction("gelu_lab", name); window.gelu_lab holds their helpers and the
// URL codec's writer. They only look up and arrange numbers that the server computed
// with gelu_lab (tables shipped with each page); no maths here.
window.gelu_lab = (function () {
  function bad(v) {
    return v === null || v === undefined || v === "" || !isFinite(Number(v));
  }
  return {
    // The query string of page state, [name, value] pairs then lang: the writer of the
    // URL codec whose reader is app/state.py (state.read; state.encode writes the same).
    // A list is written a,b; an empty or non-finite value is left out.
    query: function (pairs, lang) {
      const q = new URLSearchParams();
      pairs.forEach(function (p) {
        const v = p[1];
        if (v === null || v === undefined || v === "" || (typeof v === "number" && !isFinite(v))) return;
        q.set(p[0], Array.isArray(v) ? v.join(",") : String(v));
      });
      q.set("lang", lang || "zh");
      return "?" + q.toString().replace(/%2C/g, ",");
    },
    // the query string's pairs, lang left out
    pairs: function (search) {
      const out = [];
      new URLSearchParams(search).forEach(function (v, k) { if (k !== "lang") out.push([k, v]); });
      return out;
    },
    // index of value v on the table's grid (lo, step, n), clamped
    index: function (v, t) {
      const i = Math.round((Number(v) - t.lo) / t.step);
      return Math.min(Math.max(i, 0), t.n - 1);
    },
    // the slider's value, or its drag_value while it is being dragged
    moved: function (v) {
      const trig = window.dash_clientside.callback_context.triggered;
      return trig && trig.length ? trig[0].value : v;
    },
    // the drawn plotly.js graph of dcc.Graph `id` (null until it is drawn): compat/plotly_gd.js
    plot: function (id) {
      return window.gelu_lab_compat.plotly_gd.find(id);
    },
    // Move curves of a drawn figure in place: Plotly.animate without redraw rewrites
    // only the paths of the given traces, where a new figure through Dash means
    // Plotly.react of the whole figure. It starts in the next task, after Dash has shown
    // the callback's readouts. The axes are left as drawn: such figures have fixed
    // ranges. `later` ({attr: [value per trace]}, e.g. legend names) redraws the legend,
    // so it is restyled once the control rests. gd.data holds what is drawn (PNG, resize).
    // The next move interrupts this one (mode immediate): plotly.js then rejects its promise
    // with no reason, which is no error (a drag by touch makes many in a row).
    move: function (gd, traces, data, later) {
      setTimeout(function () {
        if (gd.isConnected) Plotly.animate(gd, { data: data, traces: traces },
          { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } })
          .catch(function (e) { if (e) throw e; });
      }, 0);
      if (later) {
        clearTimeout(gd.__later);
        gd.__later = setTimeout(function () { if (gd.isConnected) Plotly.restyle(gd, later, traces); }, 150);  // the page may be gone
      }
    },
    bad: bad,
    // what the readouts of a slider table show at value v: the texts of table.ids
    reads: function (v, t) {
      return t.reads[window.gelu_lab.index(v, t)];
    },
    // The readouts a slider's clientside callback returns for row i of its table. One writer
    // per readout: where the compat entry "readouts" is on (compat/speed_readouts.js), it
    // writes them as the handle moves, and the callback leaves them alone; else the callback.
    shown: function (t, i) {
      const C = window.gelu_lab_compat;
      return C && C.readouts ? t.ids.map(function () { return window.dash_clientside.no_update; }) : t.reads[i];
    },
    // a family of precomputed curves y[i] of figure `id`, indexed by a slider
    family: function (id, v, dv, table) {
      const G = window.gelu_lab, nu = window.dash_clientside.no_update;
      v = G.moved(v);
      const gd = G.plot(id);
      if (G.bad(v) || !gd) return table.ids.map(function () { return nu; });
      const i = G.index(v, table);
      G.move(gd, [table.trace], [{ y: table.y[i] }], { name: [table.names[i]] });
      return G.shown(table, i);
    },
  };
})();

window.dash_clientside = Object.assign({}, window.dash_clientside, {
  gelu_lab: {
    // shell: the URL the shell should show; no update when it shows it already
    route: function (path, search, rendered) {
      const k = (path || "/") + (search || "");
      return k === rendered ? window.dash_clientside.no_update : k;
    },
    // shell: <html lang> and the tab's title follow the page shown ({lang, title}, shell.render)
    head: function (h) {
      if (h) { document.documentElement.lang = h.lang; document.title = h.title; }
      return window.dash_clientside.no_update;
    },
    // shell: mirror a page's control values into the address bar, without a reload.
    // Inputs: the page's controls "<slug>-<param>", then the lang; output "<slug>-url".
    sync_url: function () {
      const ctx = window.dash_clientside.callback_context, args = Array.prototype.slice.call(arguments);
      const out = Array.isArray(ctx.outputs_list) ? ctx.outputs_list[0] : ctx.outputs_list;
      const slug = out.id.replace(/-url$/, "");
      const pairs = ctx.inputs_list.map(function (inp, i) { return [inp.id.slice(slug.length + 1), args[i]]; });
      const search = window.gelu_lab.query(pairs, args[pairs.length]);
      if (search !== window.location.search) {
        window.history.replaceState(window.history.state, "", window.location.pathname + search);
      }
      return search;
    },
    // shell: the language buttons. They are re-rendered with every page, which fires this
    // callback with n_clicks = 0 (prevent_initial_call does not hold for inserted inputs): ignore that
    switch_lang: function (zh, en) {
      if (!zh && !en) return window.dash_clientside.no_update;
      const trig = window.dash_clientside.callback_context.triggered_id;
      return window.gelu_lab.query(window.gelu_lab.pairs(window.location.search), trig === "lang-en" ? "en" : "zh");
    },
    // Definition: move x. table: {lo, step, n, xs, density, gelu} (numbers) and
    // {reads, label, side} (preformatted); the shaded area, both markers and the
    // Phi(x) label (a text trace, on the side of x towards the middle) move in the drawn
    // figure (gelu_lab.move); returns the readouts.
    definition_x: function (x, dx, table) {
      const G = window.gelu_lab, nu = window.dash_clientside.no_update;
      x = G.moved(x);
      const gd = G.plot("definition-gate");
      if (G.bad(x) || !gd) return table.ids.map(function () { return nu; });
      const i = G.index(x, table), xv = table.xs[i], S = table.trace;
      G.move(gd, [S.shade, S.mark_in, S.mark_out, S.label], [
        { x: table.xs.slice(0, i + 1), y: table.density.slice(0, i + 1) }, { x: [xv], y: [xv] }, { x: [xv], y: [table.gelu[i]] },
        { x: [xv], y: [table.label_y], text: [table.label[i]], textposition: [table.side[i]] },
      ]);
      return G.shown(table, i);
    },
    // vs ReLU: GELU(s x)/s for the slider's s; vs Sigmoid: x sigma(beta x) for its beta
    relu_s: function (v, dv, table) { return window.gelu_lab.family("relu-scale", v, dv, table); },
    sigmoid_beta: function (v, dv, table) { return window.gelu_lab.family("sigmoid-family", v, dv, table); },
    // Overview: the ticked activations' curves and table rows (gelu_lab.shown's rule). spec = [every name, in
    // the rows' order; a ticked curve's style; an unticked one's] (figures/curves.py
    // SHOWN, HIDDEN): every curve is drawn, an unticked one transparent, skipped by the
    // hover, not in the legend.
    visible: function (names, fig, spec) {
      const nu = window.dash_clientside.no_update, all = spec[0];
      if (!fig || !Array.isArray(names)) return [nu].concat(all.map(function () { return nu; }));
      const f = Object.assign({}, fig, { data: fig.data.map(function (tr) {
        return Object.assign({}, tr, names.indexOf(tr.meta) >= 0 ? spec[1] : spec[2]);
      }) });
      // the rows: one writer, compat/speed_ticks.js where that entry is on (as a box changes), else here
      const C = window.gelu_lab_compat, early = C && C.ticks;
      return [f].concat(all.map(function (n) { return early ? nu : names.indexOf(n) < 0; }));
    },
    // a preset button {type, value} sets its slider to its value
    preset: function (clicks) {
      const trig = window.dash_clientside.callback_context.triggered_id;
      if (!trig || !clicks.some(function (c) { return c; })) return window.dash_clientside.no_update;
      return Number(trig.value);
    },
  },
});
