// A <select data-autosubmit> sends its form as soon as the choice changes (the language at the
// foot of every page, the game on the create page). A static file, not an onchange="" attribute:
// the Content-Security-Policy runs no inline handlers. Each such form keeps a <noscript> button.
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) {
      el.form.submit();
    }
  });
})();
