// A speed trick (app/speed.py: "ticks"). Ticks that show before Dash does: a checklist
// inside an element with data-rows (an id prefix) and data-plot (a figure's id) shows
// or hides, as soon as a box changes, the row data-rows + value and the curve whose
// meta is the value (drawn, transparent when unticked: figures/curves.py); the
// clientside callback then redraws the figure with the same choice (legend, hover).
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
