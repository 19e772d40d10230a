// compat entries "dash_css" and "plotly_css" (gelu_lab/app/compat/__init__.py): the checks of
// compat/dash.css and compat/plotly.css, whose selectors name Dash's and plotly.js's class
// names. Each check fails naming a class that the page's controls or figures no longer carry.
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  function missing(root, sels) {
    return sels.filter(function (s) { return !root.querySelector(s); });
  }
  C.dash_css = {
    depends: "dash==4.4.1 (classes dash-options-list-option(-checkbox), dash-slider-root, dash-slider-thumb)",
    check: function () {
      const main = document.querySelector("main");
      if (!main) return null;
      const out = [], sliders = main.querySelectorAll(".slider [role=slider]").length;
      const boxes = Array.from(main.querySelectorAll("input[type=checkbox]")).filter(function (b) { return !b.closest(".figure-data, .quiz"); }).length;
      if (!sliders && !boxes) return null;
      if (sliders) missing(main, [".slider .dash-slider-root", ".slider .dash-slider-thumb"]).forEach(function (s) { out.push("dash: no " + s + " beside a slider handle"); });
      if (boxes) missing(main, [".dash-options-list-option", ".dash-options-list-option-checkbox"]).forEach(function (s) { out.push("dash: no " + s + " for a checklist"); });
      return out;
    },
  };
  C.plotly_css = {
    depends: "plotly==7.1.0 (plotly.js SVG classes: svg-container, main-svg, bg, gridlayer, zerolinelayer, modebar-btn)",
    check: function () {
      const gd = C.plotly_gd.all(document.querySelector("main") || document)[0];
      if (!gd) return null;
      return missing(gd, [".svg-container > .main-svg", ".main-svg .bg", ".gridlayer", ".zerolinelayer", ".plotly .modebar-group", ".plotly .modebar-btn path"])
        .map(function (s) { return "plotly.js: no " + s + " in a drawn figure"; });
    },
  };
})();
