// GELU Lab clientside callbacks. They only look up and arrange numbers that the
// server computed with gelu_lab (tables shipped with each page); no maths here.
window.gelu_lab = (function () {
  function query(names, values, lang) {
    const q = new URLSearchParams();
    names.forEach(function (n, i) {
      const v = values[i];
      if (v === null || v === undefined || v === "" || (typeof v === "number" && !isFinite(v))) return;
      q.set(n, Array.isArray(v) ? v.join(",") : String(v));
    });
    q.set("lang", lang || "zh");
    return "?" + q.toString().replace(/%2C/g, ",");
  }
  return {
    // mirror a page's control values into the address bar, without a reload
    sync_url: function (names, args) {
      const lang = args[names.length];
      const search = query(names, args.slice(0, names.length), lang);
      if (search !== window.location.search) {
        window.history.replaceState(window.history.state, "", window.location.pathname + search);
      }
      return search;
    },
    // the buttons are re-rendered with every page, which fires this callback with
    // n_clicks = 0 (prevent_initial_call does not hold for inserted inputs): ignore that
    switch_lang: function (zh, en) {
      if (!zh && !en) return window.dash_clientside.no_update;
      const trig = window.dash_clientside.callback_context.triggered_id;
      const q = new URLSearchParams(window.location.search);
      q.set("lang", trig === "lang-en" ? "en" : "zh");
      return "?" + q.toString().replace(/%2C/g, ",");
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
    // the drawn plotly.js graph of dcc.Graph `id` (null until it is drawn)
    plot: function (id) {
      const el = document.getElementById(id);
      return el && (el.classList.contains("js-plotly-plot") ? el : el.querySelector(".js-plotly-plot"));
    },
    // Move curves of a drawn figure in place: Plotly.animate without redraw rewrites
    // only the paths of the given traces (~10-20 ms on the slow test CPU), where a new
    // figure through Dash meant Plotly.react of the whole figure (30-70 ms). It starts
    // in the next task, after Dash has shown the callback's readouts. The axes are left
    // as drawn: such figures have fixed ranges. `later` ({attr: [value per trace]},
    // e.g. legend names) redraws the legend, so it is restyled once the control rests.
    // gd.data holds what is drawn (PNG download, resize).
    move: function (gd, traces, data, later) {
      setTimeout(function () {
        if (gd.isConnected) Plotly.animate(gd, { data: data, traces: traces },
          { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } });
      }, 0);
      if (later) {
        clearTimeout(gd.__later);
        gd.__later = setTimeout(function () { if (gd.isConnected) Plotly.restyle(gd, later, traces); }, 150);  // the page may be gone
      }
    },
    bad: function (v) {
      return v === null || v === undefined || v === "" || !isFinite(Number(v));
    },
    // what the readouts of a slider table show at value v: the texts of table.ids
    reads: function (v, t) {
      return t.reads[window.gelu_lab.index(v, t)];
    },
  };
})();

// Readouts that follow their slider before Dash does. Dash 4's slider shows its new
// value on the handle (aria-valuenow) as soon as a key or a drag moves it; the
// clientside callback that computes the readouts runs a frame or more later, after
// Dash has passed the value through its store. A slider made with a table
// (components.slider: data-table names the dcc.Store of its table) gets its
// readouts written right here, from the same table row; the callback then writes
// the same texts again (and moves the figure).
(function () {
  function early(handle) {
    const box = handle.closest("[data-table]"), api = window.dash_component_api;
    const layout = box && api && api.getLayout && api.getLayout(box.getAttribute("data-table"));
    const t = layout && layout.props && layout.props.data, v = handle.getAttribute("aria-valuenow");
    if (!t || !t.reads || window.gelu_lab.bad(v)) return;
    window.gelu_lab.reads(v, t).forEach(function (text, k) {
      const node = (document.getElementById(t.ids[k]) || {}).firstChild;  // React's text node: it updates it again
      if (node && node.nodeType === 3 && node.nodeValue !== text) node.nodeValue = text;
    });
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) { early(r.target); });
  }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ["aria-valuenow"] });
})();

// Ticks that show before Dash does. A checklist inside an element with data-rows
// (an id prefix) and data-plot (a figure's id) shows or hides, as soon as a box
// changes, the row data-rows + value and the curve whose meta is the value (drawn,
// transparent when unticked: figures/curves.py); the clientside callback then redraws
// the figure with the same choice (legend, hover).
(function () {
  document.addEventListener("change", function (e) {
    const box = e.target, host = box.closest && box.closest("[data-rows]");
    if (!host || box.type !== "checkbox") return;
    const gd = window.gelu_lab.plot(host.getAttribute("data-plot"));
    const layers = gd ? gd.querySelectorAll(".scatterlayer .trace") : [];
    const row = document.getElementById(host.getAttribute("data-rows") + box.value);
    if (row) row.hidden = !box.checked;
    (gd && gd.data || []).forEach(function (tr, i) {
      if (tr.meta === box.value && layers[i]) layers[i].style.opacity = box.checked ? 1 : 0;
    });
  }, true);
})();

window.dash_clientside = Object.assign({}, window.dash_clientside, {
  gelu_lab: {
    // Definition: move x. table: {lo, step, n, xs, density, gelu} (numbers) and
    // {reads, label} (preformatted); the shaded area, both markers and the
    // Phi(x) label (a text trace) move in the drawn figure (gelu_lab.move); returns the readouts.
    definition_x: function (x, dx, table) {
      const G = window.gelu_lab, nu = window.dash_clientside.no_update;
      x = G.moved(x);
      const gd = G.plot("definition-gate");
      if (G.bad(x) || !gd) return table.ids.map(function () { return nu; });
      const i = G.index(x, table), xv = table.xs[i], S = table.trace;
      G.move(gd, [S.shade, S.mark_in, S.mark_out, S.label], [
        { x: table.xs.slice(0, i + 1), y: table.density.slice(0, i + 1) }, { x: [xv], y: [xv] }, { x: [xv], y: [table.gelu[i]] },
        { x: [xv], y: [table.label_y], text: [table.label[i]] },
      ]);
      return table.reads[i];
    },
    // a family of precomputed curves y[i] indexed by a slider (vs ReLU's s, vs Sigmoid's beta)
    family: function (id, v, dv, table) {
      const G = window.gelu_lab, nu = window.dash_clientside.no_update;
      v = G.moved(v);
      const gd = G.plot(id);
      if (G.bad(v) || !gd) return table.ids.map(function () { return nu; });
      const i = G.index(v, table);
      G.move(gd, [table.trace], [{ y: table.y[i] }], { name: [table.names[i]] });
      return table.reads[i];
    },
    // Overview: the ticked activations' curves and table rows. spec = [every name, in
    // the rows' order; a ticked curve's style; an unticked one's] (figures/curves.py
    // SHOWN, HIDDEN): every curve is drawn, an unticked one transparent, skipped by the
    // hover, not in the legend. The tick already showed (see the early toggles below);
    // this is the figure as drawn from now on (legend, hover, PNG download).
    visible: function (names, fig, spec) {
      const nu = window.dash_clientside.no_update, all = spec[0];
      if (!fig || !Array.isArray(names)) return [nu].concat(all.map(function () { return nu; }));
      const f = Object.assign({}, fig, { data: fig.data.map(function (tr) {
        return Object.assign({}, tr, names.indexOf(tr.meta) >= 0 ? spec[1] : spec[2]);
      }) });
      return [f].concat(all.map(function (n) { return names.indexOf(n) < 0; }));
    },
    preset: function (clicks) {
      const trig = window.dash_clientside.callback_context.triggered_id;
      if (!trig || !clicks.some(function (c) { return c; })) return window.dash_clientside.no_update;
      return Number(trig.value);
    },
  },
});

// Formulas: the server sends each one as MathML markup in a div's data-mathml
// (gelu_lab.mathml; Dash has no MathML components). Put it in place whenever such
// a div appears or changes; the browser draws MathML itself (no MathJax).
(function () {
  function draw(el) {
    const mml = el.getAttribute("data-mathml");
    if (el.__mathml !== mml) { el.innerHTML = mml; el.__mathml = mml; }
  }
  function scan(root) {
    if (root.nodeType !== 1) return;
    if (root.matches(".math-display[data-mathml]")) draw(root);
    root.querySelectorAll(".math-display[data-mathml]").forEach(draw);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.type === "attributes") draw(r.target);
      else r.addedNodes.forEach(scan);
    });
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-mathml"] });
})();

// dcc.Graph and dcc.Slider are React.lazy components. Their code is on the page
// before Dash renders (app/__init__.py: EAGER_CHUNKS), yet the first render of each
// still suspends: React commits the page without them, paints it, and renders it
// again, 100-230 ms between the page and its first figure on the 2-core test
// machine. Rendering one of each once, off the document, as soon as the scripts
// have run resolves the lazy wrappers; Dash's first render of the page then commits
// its figures and sliders with it (tests/test_app_pages.py checks).
document.addEventListener("DOMContentLoaded", function () {
  const dcc = window.dash_core_components, h = window.React && window.React.createElement;
  if (!dcc || !h || !window.ReactDOM || !window.ReactDOM.createRoot) return;
  const root = window.ReactDOM.createRoot(document.createElement("div")), nop = function () {};
  window.ReactDOM.flushSync(function () {
    root.render(h("div", null,
      h(dcc.Graph, { id: "gelu-lab-lazy-graph", figure: { data: [], layout: {} }, setProps: nop }),
      h(dcc.Slider, { id: "gelu-lab-lazy-slider", min: 0, max: 1, value: 0, setProps: nop })));
  });
  root.unmount();
});
