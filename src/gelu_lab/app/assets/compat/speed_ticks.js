// compat entry "ticks", a speed trick (gelu_lab/app/compat/speed.py; plotly.js of
// plotly==7.1.0: one SVG g.trace per trace, in order, in .scatterlayer). Ticks that show before Dash does: a checklist
// inside an element with data-rows (an id prefix) and data-plot (a figure's id) shows
// or hides, as soon as a box changes, the row data-rows + value and the curve whose
// meta is the value (drawn, transparent when unticked: figures/curves.py); the
// clientside callback then redraws the figure with the same choice (legend, hover), and
// leaves the rows to this (gelu_lab.js visible: one writer per row).
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  C.ticks = {
    depends: "plotly==7.1.0 (plotly.js: .scatterlayer .trace, one per scatter trace, in order)",
    check: function () {
      const hosts = Array.from(document.querySelectorAll("main [data-rows][data-plot]"));
      if (!hosts.length) return null;
      const out = [];
      hosts.forEach(function (host) {
        const gd = window.gelu_lab.plot(host.getAttribute("data-plot"));
        if (!gd) { out.push("no drawn figure #" + host.getAttribute("data-plot")); return; }
        const n = gd.querySelectorAll(".scatterlayer .trace").length, want = gd.data.filter(function (t) { return !t.type || t.type === "scatter"; }).length;
        if (n !== want) out.push("plotly.js: " + n + " .scatterlayer .trace for " + want + " scatter traces");
      });
      return out;
    },
  };
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
