// compat entry "figure_text" (gelu_lab/app/compat/__init__.py; plotly==7.1.0, dash==4.4.1):
// finds plotly.js's graph divs by their class js-plotly-plot, dcc.Graph's own div by its class
// dash-graph (the box goes inside it, so it goes with the graph), and reads the PNG's file
// name from plotly.js's private gd._context. check() fails naming what is gone.
// Every figure says what it draws and hands out its data: a text alternative (what is drawn
// and its key values, one or two sentences) names the plot, and a "data (CSV)" button under
// it downloads its traces. Both are written in the browser from the live gd.data and
// gd.layout after each draw, not by the server: clientside callbacks (gelu_lab.js) move
// curves with no server round trip, and a caption made with the layout would go stale.
// The words are shell.md's fig.* blocks, put on <main> as data-figure-words (shell.main_words),
// so no word of either language is written here. The offline report runs this file too.
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  C.figure_text = {
    depends: "plotly==7.1.0 (class js-plotly-plot, gd._context.toImageButtonOptions), dash==4.4.1 (class dash-graph)",
    check: function () {
      const gds = Array.from(document.querySelectorAll("main .js-plotly-plot"));
      if (!gds.length) return document.querySelector("main .dash-graph") ? ["plotly.js: no .js-plotly-plot inside dcc.Graph"] : null;
      const out = [];
      gds.forEach(function (gd) {
        const opts = gd._context && gd._context.toImageButtonOptions;
        if (!opts || typeof opts !== "object") out.push("plotly.js: gd._context.toImageButtonOptions gone");
        if (!gd.parentElement || !gd.parentElement.classList.contains("dash-graph")) out.push("dash: the graph div's parent is not .dash-graph");
        else if (!gd.parentElement.querySelector(".figure-data")) out.push("no text alternative made for a figure");
      });
      return out;
    },
  };

  const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array, u2: Uint16Array, i1: Int8Array, u1: Uint8Array };
  let n = 0;

  function values(a) {  // plotly.py sends arrays as base64 typed arrays ({dtype, bdata}), and gd.data keeps them so
    if (!a) return null;
    if (typeof a.bdata !== "string") return Array.from(a);
    const bin = atob(a.bdata), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return Array.from(new TYPED[a.dtype](bytes.buffer));
  }
  function sig(v) {  // gelu_lab.printing.sig: four significant figures, 12,346 grouped
    if (typeof v !== "number") return plain(v);
    const a = Math.abs(v);
    if (v === 0 || !isFinite(v)) return String(v);
    if (a >= 1e4 && a < 1e7) return Math.round(v).toLocaleString("en-US");
    return a < 1e-4 || a >= 1e7 ? v.toExponential(3) : v.toPrecision(4);
  }
  function plain(s) {  // a Plotly label as text: <br> is a space, no other markup
    return String(s === undefined || s === null ? "" : s).replace(/<br\s*\/?>/gi, " ").replace(/<[^>]*>/g, "").trim();
  }
  function fill(t, vals) {  // content.fill
    return t.replace(/\{(\w+)\}/g, function (m, k) { return k in vals ? vals[k] : m; });
  }
  function list(items, t) {  // a, b, c in the language's separators
    return items.reduce(function (a, b) { return fill(t, { a: a, b: b }); });
  }
  function axisTitle(gd, id) {  // "x2" -> layout.xaxis2's title
    const ax = gd.layout[id.charAt(0) + "axis" + id.slice(1)] || {};
    return plain(ax.title && (ax.title.text !== undefined ? ax.title.text : ax.title));
  }

  // the traces a reader sees: what a hidden (legendonly, transparent) trace holds is not drawn
  function drawn(gd, W) {
    return gd.data.filter(function (t) { return t.visible !== false && t.visible !== "legendonly" && t.opacity !== 0; }).map(function (t, i) {
      let x = values(t.x), y = values(t.y), xa = t.xaxis || "x", ya = t.yaxis || "y";
      if (t.orientation === "h") { [x, y, xa, ya] = [y, x, ya, xa]; }
      y = y || [];
      x = x || y.map(function (_, j) { return j; });
      return { name: plain(t.name), x: x, y: y, bar: t.type === "bar", line: t.type !== "bar" && (t.mode || "lines").indexOf("lines") >= 0,
               xa: xa, ya: ya, series: fill(W.series, { n: i + 1 }) };
    });
  }
  function at(x, W) { return typeof x === "number" ? fill(W.x, { x: sig(x) }) : plain(x); }

  // one trace's key values: its bars' (or few points') values, else where it is lowest and highest
  function part(t, W) {
    const pts = t.x.map(function (x, i) { return [x, t.y[i]]; }).filter(function (p) { return typeof p[1] === "number" && isFinite(p[1]); });
    const name = t.name;
    if (!pts.length) return fill(W.none, { name: name });
    if (pts.length === 1 || (pts.length <= 8 && (t.bar || typeof pts[0][0] !== "number"))) {
      return fill(W.values, { name: name, values: list(pts.map(function (p) {
        return fill(typeof p[0] === "number" ? W.pair : W["pair.cat"], { x: at(p[0], W), y: sig(p[1]) });
      }), W.and) });
    }
    let lo = pts[0], hi = pts[0];
    pts.forEach(function (p) { if (p[1] < lo[1]) lo = p; if (p[1] > hi[1]) hi = p; });
    if (lo[1] === hi[1]) return fill(W.flat, { name: name, y: sig(lo[1]), x0: at(pts[0][0], W), x1: at(pts[pts.length - 1][0], W) });
    return fill(W.range, { name: name, min: sig(lo[1]), xmin: at(lo[0], W), max: sig(hi[1]), xmax: at(hi[0], W) });
  }

  function describe(gd, W, title) {
    const all = drawn(gd, W);
    const kind = all.every(function (t) { return t.bar; }) ? "bar" : all.some(function (t) { return t.bar; }) ? "mixed" : all.some(function (t) { return t.line; }) ? "line" : "points";
    if (!all.length) {  // an empty frame says why in its annotation
      const note = (gd.layout.annotations || []).map(function (a) { return plain(a.text); }).join(" ");
      return fill(W.empty, { kind: W["kind.mixed"], title: title, note: note || W.nodata });
    }
    // named traces once each (a curve and its marker, a subplot's copy); unnamed ones only when no trace has a name
    const seen = {}, named = all.filter(function (t) { return t.name && !seen[t.name] && (seen[t.name] = true); });
    const shown = named.length ? named : all.map(function (t) {  // one unnamed trace is what its y axis says
      return Object.assign({}, t, { name: (all.length === 1 && axisTitle(gd, t.ya)) || t.series });
    });
    const xa = gd.layout.xaxis || {}, r = xa.range || [];
    let lo = r[0], hi = r[1];
    if (xa.type === "log") { lo = Math.pow(10, lo); hi = Math.pow(10, hi); }
    if (xa.type === "category") { const c = all[0].x; lo = c[0]; hi = c[c.length - 1]; }
    return fill(W.text, { kind: W["kind." + kind], title: title, axis: axisTitle(gd, "x") || "x", lo: sig(lo), hi: sig(hi),
                          traces: list(shown.map(function (t) { return part(t, W); }), W.sep) });
  }

  // the figure's traces as CSV: an x and a y column per drawn trace, headed by its name and axis
  function csv(gd, W) {
    const all = drawn(gd, W), head = [], cols = [], used = {};
    all.forEach(function (t) {
      [[t.x, t.xa], [t.y, t.ya]].forEach(function (c) {
        let h = fill(W.column, { name: t.name || t.series, axis: axisTitle(gd, c[1]) || c[1].charAt(0) });
        used[h] = (used[h] || 0) + 1;
        if (used[h] > 1) h += " (" + used[h] + ")";  // a subplot's copy of a curve
        head.push(h);
        cols.push(c[0]);
      });
    });
    const cell = function (v) {
      if (v === undefined || v === null) return "";
      const s = typeof v === "number" ? String(v) : plain(v);
      return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    };
    const rows = [head.map(cell).join(",")], len = Math.max.apply(null, cols.map(function (c) { return c.length; }).concat(0));
    for (let i = 0; i < len; i++) rows.push(cols.map(function (c) { return cell(c[i]); }).join(","));
    return rows.join("\r\n") + "\r\n";
  }

  function words(gd) {
    const main = gd.closest("main"), w = main && main.getAttribute("data-figure-words");
    return w ? JSON.parse(w) : null;
  }
  // the title a reader sees, else the heading of the figure's section
  function titleOf(gd) {
    const t = plain(gd.layout.title && (gd.layout.title.text !== undefined ? gd.layout.title.text : gd.layout.title));
    const box = gd.closest("section, details"), h = box && box.querySelector("h1, h2, h3, summary");
    return t || (h ? plain(h.textContent) : "");
  }

  // The text and the button live in a box after the plot, inside dcc.Graph's own div (so
  // they go when the graph goes); in the report the plot has no such div: right after it.
  function box(gd, W) {
    if (gd.__figureBox && gd.__figureBox.isConnected) return gd.__figureBox;
    const b = document.createElement("div"), p = document.createElement("p"), button = document.createElement("button");
    b.className = "figure-data";
    p.id = "figure-alt-" + (++n);
    p.hidden = true;  // read as the plot's name (aria-labelledby), not a second time as a paragraph
    button.type = "button";
    button.className = "figure-csv";
    button.__gd = gd;
    b.append(p, button);
    const host = gd.parentElement && gd.parentElement.classList.contains("dash-graph") ? gd.parentElement : null;
    if (host) host.appendChild(b); else gd.after(b);
    gd.__figureBox = b;
    return b;
  }
  function update(gd) {
    const W = gd.isConnected && gd.data && gd.layout && words(gd);
    if (!W) return;
    const b = box(gd, W), p = b.firstChild, button = b.lastChild, title = titleOf(gd);
    p.textContent = describe(gd, W, title);
    gd.setAttribute("role", "figure");
    gd.setAttribute("aria-labelledby", p.id);
    button.textContent = W.csv;
    button.setAttribute("aria-label", title ? fill(W["csv.name"], { title: title }) : W.csv);
    button.hidden = !drawn(gd, W).some(function (t) { return t.y.length; });
  }

  const pending = new Set();
  function later(gd) {  // once per frame, however many draws (a dragged slider)
    if (!pending.size) requestAnimationFrame(function () { pending.forEach(update); pending.clear(); });
    pending.add(gd);
  }
  function watch(gd) {  // gd.on exists once Plotly has started drawing into gd
    if (gd.__figureText || typeof gd.on !== "function") return;
    gd.__figureText = true;
    gd.on("plotly_afterplot", function () { later(gd); });  // Plotly.react, restyle, relayout, resize
    gd.on("plotly_animated", function () { later(gd); });  // gelu_lab.move: Plotly.animate draws no afterplot
    later(gd);
  }
  function scan(root) {
    if (root.nodeType !== 1) return;
    const gd = root.closest(".js-plotly-plot");
    if (gd) watch(gd);
    else root.querySelectorAll(".js-plotly-plot").forEach(watch);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) { r.addedNodes.forEach(scan); });
  }).observe(document.documentElement, { childList: true, subtree: true });
  scan(document.documentElement);  // the report's figures are drawn before this runs

  document.addEventListener("click", function (e) {
    const button = e.target.closest && e.target.closest(".figure-csv"), gd = button && button.__gd;
    const W = gd && words(gd);
    if (!W) return;
    // built now from what is drawn; a Blob URL: nothing leaves the page
    const url = URL.createObjectURL(new Blob(["\ufeff" + csv(gd, W)], { type: "text/csv;charset=utf-8" }));
    const a = document.createElement("a"), opts = gd._context && gd._context.toImageButtonOptions;
    a.href = url;
    a.download = ((opts && opts.filename) || "gelu-lab-" + (gd.id || "figure")) + ".csv";  // the PNG's name
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  });
})();
