// A seat played on a shared device (templates/gameplay/shared_seat.html): pass-and-play.
// - The page starts black ([data-pass-cover]) and holds none of the seat's secrets. Pressing and holding
//   [data-pass-hold] fetches the seat's screen (its requests name the seat: hx-headers on the section);
//   it shows only if the finger (or Space/Enter) is still down when it arrives, else it is thrown away.
// - A seat with a PIN has a PIN form instead ([data-pass-pin]): the server judges the PIN and, if right, lets
//   the screen be fetched (until it blacks out, or a couple of minutes unused); a wrong one shows its refusal.
// - The screen is the seat's whole screen, or (the result page, data-panel-verb POST) one private result alone.
// - Once shown it stays while the player plays (a thumb must be free to tap). It is removed from the page
//   (not hidden) and the cover comes back: on "Done", after a move or answer that landed, and when the
//   page is hidden; each time the server is told (data-lock-url), so the seat needs its hold or PIN again.
//   Secrets inside keep their own hold-to-peek (phone.js).
// No inline scripts: the CSP forbids them.
(function () {
  "use strict";
  var section = document.querySelector("[data-pass-seat]");
  if (!section) { return; }
  var cover = section.querySelector("[data-pass-cover]");
  var screen = section.querySelector("[data-pass-screen]");
  var panel = section.querySelector("[data-pass-panel]");
  var hold = section.querySelector("[data-pass-hold]");
  var pinForm = section.querySelector("[data-pass-pin]");
  var done = section.querySelector("[data-pass-done]");
  var refused = section.querySelector("[data-pass-refused]");
  var holding = false;
  var shown = false;

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; } catch (e) { return ""; }
  }

  function lock() {
    // The server ends the seat's unlock; keepalive lets it go out as the page is hidden or left.
    window.fetch(section.dataset.lockUrl, {method: "POST", credentials: "same-origin", keepalive: true,
                                           headers: {"X-CSRFToken": csrf()}}).catch(function () {});
  }

  function blackout(afterMove) {
    var was = shown || holding;
    holding = false;
    shown = false;
    panel.replaceChildren();
    screen.hidden = true;
    cover.hidden = false;
    done.hidden = !afterMove;
    if (pinForm) { pinForm.reset(); }
    if (was) { lock(); }
  }

  function fetchScreen(source) {
    holding = true;
    refused.hidden = true;
    window.htmx.ajax(section.dataset.panelVerb || "GET", section.dataset.panelUrl,
                     {source: source, target: panel, swap: "innerHTML"});
  }

  function press(event) {
    if (event) { event.preventDefault(); }
    if (holding || !window.htmx) { return; }
    fetchScreen(hold);
  }

  function release() {
    if (screen.hidden) { blackout(false); } else { holding = false; }
  }

  if (hold) {
    hold.addEventListener("pointerdown", press);
    ["pointerup", "pointercancel", "pointerleave"].forEach(function (name) { hold.addEventListener(name, release); });
    hold.addEventListener("contextmenu", function (event) { event.preventDefault(); });
    hold.addEventListener("keydown", function (event) {
      if ((event.key === " " || event.key === "Enter") && !event.repeat) { press(event); }
    });
    hold.addEventListener("keyup", function (event) { if (event.key === " " || event.key === "Enter") { release(); } });
  }

  if (pinForm) {
    var pinError = pinForm.querySelector("[data-pin-error]");
    pinForm.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!window.htmx) { return; }
      pinError.hidden = true;
      window.fetch(pinForm.action, {method: "POST", credentials: "same-origin", body: new FormData(pinForm),
                                    headers: {"X-CSRFToken": csrf()}}).then(function (response) {
        // The fetch's source is the cover (inside the section, for its header), not the form: htmx would check
        // (and send) the emptied form's fields.
        if (response.status === 204) { pinForm.reset(); fetchScreen(cover); return null; }
        return response.text().then(function (text) {
          pinForm.reset();
          pinError.textContent = text;
          pinError.hidden = false;
        });
      }).catch(function () { pinError.textContent = refused.textContent; pinError.hidden = false; });
    });
  }

  section.querySelector("[data-pass-hide]").addEventListener("click", function () { blackout(false); });
  document.addEventListener("visibilitychange", function () { if (document.hidden) { blackout(false); } });
  window.addEventListener("pagehide", function () { blackout(false); });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target !== panel) { return; }
    if (!holding) { panel.replaceChildren(); return; }
    shown = true;
    cover.hidden = true;
    screen.hidden = false;
    done.hidden = true;
    // A PIN's screen stays shown without a finger down: only a hold's ends with its release.
    if (!hold) { holding = false; }
  });
  // The screen's fetch refused (the PIN's unlock lapsed, the seat went back to its phone): the cover stays.
  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.target !== panel || shown) { return; }
    blackout(false);
    refused.hidden = false;
  });
  // A move or answer sent from the screen (the page's htmx posts, but the result's own fetch) that landed: black
  // out before the device goes back. A refused one keeps the screen, with the refusal's note on it.
  document.addEventListener("htmx:afterRequest", function (event) {
    var config = event.detail.requestConfig;
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (event.detail.elt === hold || event.detail.elt === cover) { return; }
    if (config && config.verb === "post" && status >= 200 && status < 300) {
      blackout(true);
    }
  });
}());
