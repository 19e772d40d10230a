// compat entry "plotly_gd" (gelu_lab/app/compat/__init__.py; plotly.js of plotly==7.1.0,
// dcc.Graph of dash==4.4.1). Dash gives no public handle to the plotly.js graph div of a
// dcc.Graph; plotly.js marks the div it draws into with the class js-plotly-plot and keeps
// the figure on it (gd.data, gd.layout, gd.on: plotly.js's documented graph div). find(id)
// is the one place that looks for it; check() fails naming what changed.
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  const PLOT = "js-plotly-plot";
  function find(id) {
    const el = typeof id === "string" ? document.getElementById(id) : id;
    return el && (el.classList.contains(PLOT) ? el : el.querySelector("." + PLOT));
  }
  C.plotly_gd = {
    depends: "plotly==7.1.0 (plotly.js: class js-plotly-plot, gd.data/layout/on), dash==4.4.1 (dcc.Graph)",
    find: find,
    all: function (root) { return Array.from((root || document).querySelectorAll("." + PLOT)); },
    // null: nothing to check on this page (no figure); [] when all holds; else what changed
    check: function () {
      const graphs = Array.from(document.querySelectorAll("main .dash-graph"));
      if (!graphs.length) return null;
      const out = [];
      graphs.forEach(function (g) {
        const gd = find(g.id);
        if (!gd) out.push("plotly.js: no element of class " + PLOT + " in dcc.Graph #" + g.id);
        else if (!Array.isArray(gd.data) || typeof gd.layout !== "object" || typeof gd.on !== "function") out.push("plotly.js: the graph div of #" + g.id + " has no data/layout/on");
      });
      return out;
    },
  };
})();
