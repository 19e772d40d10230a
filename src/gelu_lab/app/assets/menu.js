// The pages menu of a narrow screen (shell._menu_button; assets/viewport.css shows the list
// only while the button says aria-expanded="true", and hides the button on a wide screen).
// A disclosure: a click, Enter or Space on the button opens or closes the list; Escape
// closes it and puts the focus back on the button; following a link, the back button or a
// click outside the header closes it (the app routes without a reload). The button's
// attribute is the one state: Dash renders it "false", this script alone changes it.
(function () {
  function button() { return document.getElementById("nav-toggle"); }
  function isOpen(b) { return b.getAttribute("aria-expanded") === "true"; }
  function set(b, open, focus) {
    b.setAttribute("aria-expanded", open ? "true" : "false");
    if (focus) b.focus();
  }
  document.addEventListener("click", function (e) {
    const b = button(), t = e.target;
    if (!b || !t.closest) return;
    if (t.closest("#nav-toggle")) { set(b, !isOpen(b)); return; }
    if (!isOpen(b)) return;
    if (t.closest("#nav-pages a")) {
      // the list goes; a focus left on one of its links would fall to <body>
      set(b, false, document.activeElement && !!document.activeElement.closest("#nav-pages"));
    } else if (!t.closest("header")) {
      set(b, false);
    }
  });
  document.addEventListener("keydown", function (e) {
    const b = button();
    if (e.key !== "Escape" || !b || !isOpen(b) || !e.target.closest || !e.target.closest("header")) return;
    set(b, false, true);
  });
  window.addEventListener("popstate", function () {
    const b = button();
    if (b && isOpen(b)) set(b, false);
  });
})();
