// compat entry "a11y" (gelu_lab/app/compat/__init__.py; dash==4.4.1): Dash 4's controls
// are found by their CSS class names (dash-options-list, dash-dropdown, ...), which are not
// a public API; check() fails naming the class that is gone.
// What Dash 4's components lack for keyboard and screen-reader use, added in place
// (axe-core finds each of these; tests/test_app_a11y.py runs it on every page). None of
// Dash's components has a public prop for them, so this script only adds attributes React
// does not manage (or removes constant ones it never sets again), whenever Dash renders:
// - a control's visible label (<label class="control-label" for=id>) names what Dash
//   renders for it: a slider's handle (role=slider) and number box, a checklist or radio
//   group, a dropdown's button; a group with no label is named by its section's heading;
// - a checklist or radio group is a group of native boxes, not a listbox of options
//   holding focusable inputs (Dash's role=listbox/option, aria-selected: axe's
//   nested-interactive);
// - a dropdown is reached by Tab on its button, not on the hidden stand-in input Dash
//   adds for Safari (focusable inside aria-hidden; an explicit tabindex is Safari's way in);
// - a box that scrolls sideways (wide table, code, formula) is a named, focusable region,
//   so the keyboard can scroll it (names: data-region-* on main, from shell.md);
// - the skip link moves the focus to main.
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  C.a11y = {
    depends: "dash==4.4.1 (class names of dcc.Checklist, RadioItems, Dropdown)",
    check: function () {
      const out = [], main = document.querySelector("main");
      if (!main) return null;
      let seen = false;
      main.querySelectorAll("input[type=checkbox], input[type=radio]").forEach(function (box) {
        if (box.closest(".figure-data, .quiz, .js-plotly-plot")) return;
        seen = true;
        if (!box.closest(".dash-options-list")) out.push("dash: a checklist/radio box outside .dash-options-list");
        else if (!box.closest(".dash-options-list-option")) out.push("dash: a box outside .dash-options-list-option");
      });
      main.querySelectorAll("[role=option], [role=listbox]").forEach(function (el) {
        if (!el.closest(".dash-dropdown-content")) out.push("dash: role " + el.getAttribute("role") + " left in place (class names changed?)");
      });
      main.querySelectorAll("button[aria-haspopup]").forEach(function (b) {
        seen = true;
        if (!b.matches("button.dash-dropdown")) out.push("dash: a dropdown button without class dash-dropdown");
        else if (!b.parentElement.querySelector(".dash-dropdown-focus-target")) out.push("dash: no .dash-dropdown-focus-target beside a dropdown");
      });
      return seen ? out : null;
    },
  };

  const LISTS = ".dash-options-list", OPTION = ".dash-options-list-option", POPUP = ".dash-dropdown-content";
  const SCROLLERS = { ".table-scroll": "table", ".wide": "table", "pre": "code", ".math-display": "math" };  // .wide: the report's
  const ALL = [".control-label[for]", LISTS, ".dash-dropdown-focus-target"].join(",");

  function labelId(label, target) {
    if (!label.id) label.id = target.id + "-label";
    return label.id;
  }
  function headingId(el) {  // a group with no label of its own: its section's heading
    const h = el.closest("section") && el.closest("section").querySelector("h2, h3");
    if (!h) return null;
    if (!h.id) h.id = el.id + "-heading";
    return h.id;
  }
  function nameParts(target, id) {
    target.querySelectorAll("[role=slider], input[type=number]").forEach(function (el) { el.setAttribute("aria-labelledby", id); });
    if (target.matches(LISTS)) target.setAttribute("aria-labelledby", id);
    if (target.matches("button.dash-dropdown")) {
      const own = target.getAttribute("aria-labelledby") || "";  // Dash's: the value shown
      if (own.split(" ")[0] !== id) target.setAttribute("aria-labelledby", (id + " " + own).trim());
    }
  }
  function fixList(list) {
    if (list.closest(POPUP)) return;  // a dropdown's open list is a real listbox, keyed by Dash
    list.setAttribute("role", list.classList.contains("dash-radioitems") ? "radiogroup" : "group");
    list.querySelectorAll(OPTION).forEach(function (o) { o.removeAttribute("role"); o.removeAttribute("aria-selected"); });
    if (!list.hasAttribute("aria-labelledby")) {
      const h = headingId(list);
      if (h) list.setAttribute("aria-labelledby", h);
    }
  }
  function fix(el) {
    if (el.matches(".control-label[for]")) {
      const target = document.getElementById(el.getAttribute("for"));
      if (target) nameParts(target, labelId(el, target));
    } else if (el.matches(LISTS)) {
      fixList(el);
    } else if (el.matches(".dash-dropdown-focus-target")) {
      el.disabled = true;  // not focusable; Dash's own handlers still run on the button
      const button = el.parentElement && el.parentElement.querySelector("button.dash-dropdown");
      if (button) button.tabIndex = 0;
    }
  }
  function scan(root) {
    if (root.nodeType !== 1) return;
    const host = root.closest(".control, .dash-options-list, .control-label");
    if (host) root = host.closest(".control") || host;  // a re-rendered handle: its label is beside it
    if (root.matches(ALL)) fix(root);
    root.querySelectorAll(ALL).forEach(fix);
  }
  function region(el, kind) {  // focusable and named while it scrolls sideways, plain otherwise
    const main = el.closest("main");
    if (el.scrollWidth > el.clientWidth + 1) {
      el.tabIndex = 0;
      el.setAttribute("role", "region");
      if (main) el.setAttribute("aria-label", main.getAttribute("data-region-" + kind) || "");
    } else if (el.getAttribute("role") === "region") {
      el.removeAttribute("tabindex"); el.removeAttribute("role"); el.removeAttribute("aria-label");
    }
  }
  let queued = false;
  function regions() {  // after layout (a formula is drawn by gelu_lab.js in the same batch)
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () {
      queued = false;
      Object.keys(SCROLLERS).forEach(function (sel) {
        document.querySelectorAll("main " + sel).forEach(function (el) { region(el, SCROLLERS[sel]); });
      });
    });
  }
  new MutationObserver(function (records) {
    let moved = false;
    records.forEach(function (r) {
      if (r.type === "attributes") {  // React sets aria-selected again when a box is ticked
        if (r.target.matches(OPTION) && !r.target.closest(POPUP) && r.target.hasAttribute("aria-selected")) r.target.removeAttribute("aria-selected");
        return;
      }
      r.addedNodes.forEach(function (n) { scan(n); moved = moved || (n.nodeType === 1 && !n.closest(".js-plotly-plot")); });  // not a figure's hover
    });
    if (moved) regions();
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-selected"] });
  window.addEventListener("resize", regions);
  window.addEventListener("load", function () { scan(document.body); regions(); });  // a page with no Dash (the offline report)
  document.addEventListener("click", function (e) {
    const skip = e.target.closest && e.target.closest(".skip-link");
    const main = skip && document.querySelector("main");
    if (!main) return;
    e.preventDefault();  // no #fragment in the URL (the URL is the page's state)
    main.focus();
    main.scrollIntoView();
  });
})();
