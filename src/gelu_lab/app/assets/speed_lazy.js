// A speed trick (app/speed.py: "first_paint"). dcc.Graph and dcc.Slider
// are React.lazy components. With their code on the page before Dash renders, the
// first render of each still suspends: React commits the page without them, paints it,
// and renders it again. Rendering one of each once, off the document, as soon as the
// scripts have run resolves the lazy wrappers; Dash's first render of the page then
// commits its figures and sliders with it (tests/test_app_pages.py checks).
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
