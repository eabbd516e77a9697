// A <select data-autosubmit> sends its form as soon as the choice changes (the language at the
// foot of every page, the game on the create page). A static file, not an onchange="" attribute:
// the Content-Security-Policy runs no inline handlers. Each such form keeps a <noscript> button.
// A <select data-engine-switch> (the game in the host's settings) shows the options of the game it
// picks at once: its form holds each game's options in a <fieldset data-engine-options="<game>">,
// the chosen one shown and the others hidden and disabled (so they are not sent). Without this
// script the server renders the saved game's options, and Save takes the picked game's defaults.
// The CSRF token rides in the page's header (<body hx-headers>), not in the forms a push draws (they are
// the same for every phone): htmx sends the header with each request it makes, and a form the browser
// posts itself is given the token as a field as it leaves.
(function () {
  "use strict";
  function pageToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; }
    catch (e) { return ""; }
  }
  function withToken(form) {
    if ((form.getAttribute("method") || "").toLowerCase() !== "post" || form.elements.namedItem("csrfmiddlewaretoken")) { return; }
    var field = document.createElement("input");
    field.type = "hidden";
    field.name = "csrfmiddlewaretoken";
    field.value = pageToken();
    form.appendChild(field);
  }
  document.addEventListener("submit", function (event) {
    if (event.target instanceof HTMLFormElement) { withToken(event.target); }
  }, true);
  function showOptions(select) {
    var sets = select.form ? select.form.querySelectorAll("fieldset[data-engine-options]") : [];
    for (var i = 0; i < sets.length; i++) {
      var chosen = sets[i].getAttribute("data-engine-options") === select.value;
      sets[i].hidden = !chosen;
      sets[i].disabled = !chosen;
    }
  }
  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) {
      withToken(el.form);
      el.form.submit();
    } else if (el instanceof HTMLSelectElement && el.hasAttribute("data-engine-switch")) {
      showOptions(el);
    }
  });
  // A form the browser restored with another game picked (back, reload) shows that game's options.
  function all() {
    var selects = document.querySelectorAll("select[data-engine-switch]");
    for (var i = 0; i < selects.length; i++) { showOptions(selects[i]); }
  }
  window.addEventListener("pageshow", all);
  document.addEventListener("htmx:afterSwap", all);
})();
