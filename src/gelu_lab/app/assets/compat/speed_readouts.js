// compat entry "readouts", a speed trick (gelu_lab/app/compat/speed.py; dash==4.4.1:
// window.dash_component_api.getLayout, dcc.Slider's handle with aria-valuenow). Readouts that follow their slider before
// Dash does: Dash 4's slider shows its new value on the handle (aria-valuenow) as soon
// as a key or a drag moves it; the clientside callback that computes the readouts runs
// a frame or more later, after Dash has passed the value through its store. A slider
// made with a table (components.slider: data-table names the dcc.Store of its table)
// gets its readouts written right here, from the same table row, into React's text
// nodes; the callback then only moves the figure (gelu_lab.shown: one writer per readout).
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  C.readouts = {
    depends: "dash==4.4.1 (window.dash_component_api.getLayout, the slider handle's aria-valuenow)",
    check: function () {
      const boxes = Array.from(document.querySelectorAll("main [data-table]"));
      if (!boxes.length) return null;
      const api = window.dash_component_api;
      if (!api || typeof api.getLayout !== "function") return ["dash: window.dash_component_api.getLayout is gone"];
      const out = [];
      boxes.forEach(function (box) {
        const layout = api.getLayout(box.getAttribute("data-table")), t = layout && layout.props && layout.props.data;
        if (!t || !t.reads) out.push("dash: getLayout('" + box.getAttribute("data-table") + "').props.data has no table");
        const handle = box.querySelector("[role=slider]");
        if (!handle || window.gelu_lab.bad(handle.getAttribute("aria-valuenow"))) out.push("dash: no slider handle with a numeric aria-valuenow in #" + box.id);
      });
      return out;
    },
  };
  function early(handle) {
    const box = handle.closest("[data-table]"), api = window.dash_component_api;
    const layout = box && api && api.getLayout && api.getLayout(box.getAttribute("data-table"));
    const t = layout && layout.props && layout.props.data, v = handle.getAttribute("aria-valuenow");
    if (!t || !t.reads || window.gelu_lab.bad(v)) return;
    window.gelu_lab.reads(v, t).forEach(function (text, k) {
      const node = (document.getElementById(t.ids[k]) || {}).firstChild;
      if (node && node.nodeType === 3 && node.nodeValue !== text) node.nodeValue = text;
    });
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) { early(r.target); });
  }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ["aria-valuenow"] });
})();
