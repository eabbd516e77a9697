// A seat played on a shared device (templates/gameplay/shared_seat.html): pass-and-play.
// - The page starts black ([data-pass-cover]) and holds none of the seat's secrets. Pressing and holding
//   [data-pass-hold] fetches the seat's screen (its requests name the seat: hx-headers on the section);
//   it shows only if the finger (or Space/Enter) is still down when it arrives, else it is thrown away.
// - Once shown it stays while the player plays (a thumb must be free to tap). It is removed from the page
//   (not hidden) and the cover comes back: on "Done", after a move or answer that landed, and when the
//   page is hidden. Secrets inside keep their own hold-to-peek (phone.js).
// No inline scripts: the CSP forbids them.
(function () {
  "use strict";
  var section = document.querySelector("[data-pass-seat]");
  if (!section) { return; }
  var cover = section.querySelector("[data-pass-cover]");
  var screen = section.querySelector("[data-pass-screen]");
  var panel = section.querySelector("[data-pass-panel]");
  var hold = section.querySelector("[data-pass-hold]");
  var done = section.querySelector("[data-pass-done]");
  var holding = false;

  function blackout(afterMove) {
    holding = false;
    panel.replaceChildren();
    screen.hidden = true;
    cover.hidden = false;
    done.hidden = !afterMove;
  }

  function press(event) {
    if (event) { event.preventDefault(); }
    if (holding || !window.htmx) { return; }
    holding = true;
    window.htmx.ajax("GET", section.dataset.panelUrl, {source: hold, target: panel, swap: "innerHTML"});
  }

  function release() {
    if (screen.hidden) { blackout(false); } else { holding = false; }
  }

  hold.addEventListener("pointerdown", press);
  ["pointerup", "pointercancel", "pointerleave"].forEach(function (name) { hold.addEventListener(name, release); });
  hold.addEventListener("contextmenu", function (event) { event.preventDefault(); });
  hold.addEventListener("keydown", function (event) {
    if ((event.key === " " || event.key === "Enter") && !event.repeat) { press(event); }
  });
  hold.addEventListener("keyup", function (event) { if (event.key === " " || event.key === "Enter") { release(); } });
  section.querySelector("[data-pass-hide]").addEventListener("click", function () { blackout(false); });
  document.addEventListener("visibilitychange", function () { if (document.hidden) { blackout(false); } });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target !== panel) { return; }
    if (!holding) { panel.replaceChildren(); return; }
    cover.hidden = true;
    screen.hidden = false;
    done.hidden = true;
  });
  // A move or answer sent from the screen (the page's only htmx posts) that landed: black out before the
  // device goes back. A refused one keeps the screen, with the refusal's note on it.
  document.addEventListener("htmx:afterRequest", function (event) {
    var config = event.detail.requestConfig;
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (config && config.verb === "post" && status >= 200 && status < 300) { blackout(true); }
  });
}());
