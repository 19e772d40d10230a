// compat entry "data_html" (gelu_lab/app/compat/__init__.py; React of dash==4.4.1): Dash
// has no component that takes markup (no dangerouslySetInnerHTML, no MathML), so a div
// React rendered with no children gets it put in by this script. It counts on React
// leaving the children of an element it rendered empty alone (it does: it never
// reconciles children it did not make), which check() watches on the page.
// Markup made on the server, in a div's data-html: formulas (gelu_lab.mathml; Dash has
// no MathML components; the browser draws MathML itself, no MathJax) and content that
// never changes once drawn (app.components.static: one component instead of hundreds).
// Put it in place whenever such a div appears or its data-html changes.
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  function draw(el) {
    const markup = el.getAttribute("data-html");
    if (markup !== null && el.__html !== markup) { el.innerHTML = markup; el.__html = markup; }
  }
  function scan(root) {
    if (root.nodeType !== 1) return;
    if (root.matches("[data-html]")) draw(root);
    root.querySelectorAll("[data-html]").forEach(draw);
  }
  C.data_html = {
    depends: "dash==4.4.1 (React 18: children of a childless element are left alone)",
    check: function () {
      const els = Array.from(document.querySelectorAll("main [data-html]"));
      if (!els.length) return null;
      return els.filter(function (el) { return el.getAttribute("data-html") && !el.firstChild; })
        .map(function (el) { return "React or Dash emptied the markup of a [data-html] div" + (el.id ? " #" + el.id : ""); });
    },
  };
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.type === "attributes") draw(r.target);
      else r.addedNodes.forEach(scan);
    });
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-html"] });
})();
