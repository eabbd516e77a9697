// The phone as a private hand that can lie on the table (templates/gameplay/table.html).
// - Hold to peek: a secret ([data-peek]) is rendered face-down; it shows only while a finger (a
//   pointer) holds its cover ([data-peek-button]) or Space/Enter is held on the focused cover. It
//   hides on release, when the pointer leaves or the browser takes the touch (a scroll), when the
//   cover loses focus, when the page is hidden, and after HOLD_MS in any case. The listeners sit on
//   the document, so they work on every panel htmx swaps in; a panel swapped in while a finger
//   still holds (a push's fragment, the whole panel refetched) shows the same secret open until the
//   release, its cover's aria-expanded saying so.
// - A secret longer than its box (a long game's "what you learned") is never cut off: while held it
//   grows over what follows (.peek-grown), shifted to stay on the screen; the box itself keeps its
//   place and size, so nothing in the page moves and, not held, every box looks alike. A box that lies
//   above the buttons of a choice depending on it ([data-peek-choice] around both) grows upwards
//   instead, never over those buttons: one finger holds it while another taps.
// - A first-time hint ([data-peek-hint], rendered hidden) shows until the first peek (localStorage).
// - While a game runs (#private-view[data-running]) the screen is kept awake (Screen Wake Lock,
//   where the browser has it), asked again when the page comes back (the browser drops it then).
// - When this phone's answer becomes awaited (#private-view [data-awaited]) it vibrates and, if the
//   player turned it on (off by default, remembered in localStorage), beeps; the panel itself
//   shows the visible cue. The toggle is [data-sound-toggle], hidden without this script.
// - A fold that opens on a choice with its own peek box ([data-peek-choice]) scrolls the box and the
//   buttons onto the screen.
// - A move played on picked cards ([data-picks] in its form: "2" for one card of each of two players,
//   "each" for one card of each player listed) is sent only once the pick is complete: its button
//   ([data-picks-submit]) is rendered disabled and enabled here when it is. A player's cards
//   ([data-pick-group]) take one tick: ticking another of them moves the tick.
// - The seat's secret in words ([data-secret-summary], a polite live region in the seat's own part): a push swaps
//   the whole part in, and a screen reader may stay silent about a region that arrives with its text, so a
//   changed text is emptied and set again once the region is in the page (announced once, politely).
// No inline scripts or handlers anywhere: the CSP forbids them.
(function () {
  "use strict";
  var HOLD_MS = 5000;
  var HINT_KEY = "peek-hint-seen";
  var SOUND_KEY = "sound-on";

  function store(key, value) {
    try {
      if (value === undefined) { return window.localStorage.getItem(key); }
      window.localStorage.setItem(key, value);
    } catch (e) { /* private mode or storage off: nothing is remembered */ }
    return null;
  }

  // ---- Hold to peek ----
  var held = null; // the open [data-peek] element
  var heldId = ""; // its id, to reopen the same secret on a panel swapped in while held
  var heldPointer = null; // the pointer that holds it (null: a key holds it)
  var heldUntil = 0;
  var timer = null;

  function cover(peek) { return peek.querySelector("[data-peek-button]"); }

  var MARGIN = 8; // px kept free at the screen's edges by a grown secret

  // Held: a secret that does not fit its box grows over the page below it (CSS .peek-grown), moved up
  // as far as needed to stay on the screen; above a choice's buttons it grows upwards from the box's
  // bottom, at most to the screen's top (--peek-room), and scrolls inside beyond that.
  // CSSOM, not a style attribute: the CSP allows it.
  function grow(peek, secret, open) {
    peek.classList.remove("peek-grown");
    secret.style.removeProperty("--peek-shift");
    secret.style.removeProperty("--peek-room");
    if (!secret.getAttribute("style")) { secret.removeAttribute("style"); } // no empty style="" left behind
    if (!open || secret.scrollHeight <= secret.clientHeight + 1) { return; }
    var box = peek.getBoundingClientRect();
    var up = !!peek.closest("[data-peek-choice]");
    if (up) { secret.style.setProperty("--peek-room", Math.round(Math.max(box.height, box.bottom - MARGIN)) + "px"); }
    peek.classList.add("peek-grown");
    var height = secret.getBoundingClientRect().height;
    var shift;
    if (up) {
      shift = box.height - height;
    } else {
      shift = Math.min(0, window.innerHeight - MARGIN - (box.top + height));
      shift = Math.max(shift, MARGIN - box.top);
    }
    if (shift) { secret.style.setProperty("--peek-shift", Math.round(shift) + "px"); }
  }

  function setOpen(peek, open) {
    peek.classList.toggle("open", open);
    var button = cover(peek);
    if (button) { button.setAttribute("aria-expanded", open ? "true" : "false"); }
    var secret = peek.querySelector(".peek-secret");
    if (secret) {
      secret.setAttribute("aria-hidden", open ? "false" : "true");
      grow(peek, secret, open);
    }
  }

  function hide() {
    clearTimeout(timer);
    timer = null;
    if (held) { setOpen(held, false); }
    held = null;
    heldId = "";
    heldPointer = null;
    // The hint goes once a peek has ended, never during one: the page must not move under the finger.
    showHints();
  }

  function show(peek, pointerId) {
    hide();
    held = peek;
    heldId = peek.id || "";
    heldPointer = pointerId;
    heldUntil = Date.now() + HOLD_MS;
    setOpen(peek, true);
    timer = setTimeout(hide, HOLD_MS);
    hintSeen();
  }

  document.addEventListener("pointerdown", function (event) {
    var button = event.target.closest && event.target.closest("[data-peek-button]");
    if (!button || event.button > 0) { return; }
    var peek = button.closest("[data-peek]");
    if (peek) { show(peek, event.pointerId); }
  });
  function release(event) {
    if (held && heldPointer !== null && event.pointerId === heldPointer) { hide(); }
  }
  document.addEventListener("pointerup", release);
  document.addEventListener("pointercancel", release);
  document.addEventListener("pointerout", function (event) {
    // The finger slid off the card: hide (moving within the cover's children is no leaving).
    if (!held || event.pointerId !== heldPointer) { return; }
    var button = cover(held);
    if (button && (!event.relatedTarget || !button.contains(event.relatedTarget))) { hide(); }
  });
  // A long press must not open the browser's menu or select the card's words.
  document.addEventListener("contextmenu", function (event) {
    if (event.target.closest && event.target.closest("[data-peek]")) { event.preventDefault(); }
  });
  document.addEventListener("selectstart", function (event) {
    if (event.target.closest && event.target.closest("[data-peek]")) { event.preventDefault(); }
  });

  function isPeekKey(event) { return event.key === " " || event.key === "Enter" || event.key === "Spacebar"; }
  document.addEventListener("keydown", function (event) {
    var button = event.target.closest && event.target.closest("[data-peek-button]");
    if (!button || !isPeekKey(event)) { return; }
    event.preventDefault(); // no page scroll on Space, no click
    if (event.repeat) { return; } // a held key does not reopen what the timer closed
    var peek = button.closest("[data-peek]");
    if (peek) { show(peek, null); }
  });
  document.addEventListener("keyup", function (event) {
    if (held && heldPointer === null && isPeekKey(event)) { hide(); }
  });
  document.addEventListener("focusout", function (event) {
    if (held && heldPointer === null && held.contains(event.target)) { hide(); }
  });
  document.addEventListener("visibilitychange", function () { if (document.hidden) { hide(); } });
  window.addEventListener("pagehide", hide);
  window.addEventListener("blur", hide);

  // ---- The first-time hint ----
  function hintSeen() {
    if (store(HINT_KEY) !== "1") { store(HINT_KEY, "1"); }
  }
  function showHints() {
    if (held) { return; }
    var seen = store(HINT_KEY) === "1";
    var hints = document.querySelectorAll("[data-peek-hint]");
    for (var i = 0; i < hints.length; i++) { hints[i].hidden = seen; }
  }

  // ---- Wake lock, the awaited cue, the sound ----
  var lock = null;
  var wantLock = false;
  var wasAwaited = null; // null until the first panel is read: a page load does not buzz
  var audio = null;

  function panel() { return document.getElementById("private-view"); }

  function acquire() {
    if (!wantLock || lock || document.hidden || !navigator.wakeLock) { return; }
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      document.body.dataset.wakeLock = "on";
      sentinel.addEventListener("release", function () {
        if (lock === sentinel) { lock = null; delete document.body.dataset.wakeLock; }
      });
      if (!wantLock) { release_(); }
    }).catch(function () { /* refused (battery saver, no user activation yet): asked again later */ });
  }
  function release_() {
    var sentinel = lock;
    lock = null;
    delete document.body.dataset.wakeLock;
    if (sentinel) { sentinel.release().catch(function () {}); }
  }

  function soundOn() { return store(SOUND_KEY) === "1"; }

  function beep() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) { return; }
    try {
      audio = audio || new Ctx();
      if (audio.state === "suspended") { audio.resume(); }
      var now = audio.currentTime;
      [0, 0.22].forEach(function (offset) {
        var osc = audio.createOscillator();
        var gain = audio.createGain();
        osc.type = "sine";
        osc.frequency.value = 880;
        gain.gain.setValueAtTime(0.0001, now + offset);
        gain.gain.exponentialRampToValueAtTime(0.25, now + offset + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + offset + 0.18);
        osc.connect(gain);
        gain.connect(audio.destination);
        osc.start(now + offset);
        osc.stop(now + offset + 0.2);
      });
    } catch (e) { /* no audio here */ }
  }

  function notice() {
    if (navigator.vibrate) {
      try { navigator.vibrate([200, 100, 200]); } catch (e) { /* not allowed yet */ }
    }
    if (soundOn()) { beep(); }
    document.body.dataset.buzzed = String((parseInt(document.body.dataset.buzzed || "0", 10) || 0) + 1);
  }

  function readPanel() {
    var el = panel();
    wantLock = !!(el && el.hasAttribute("data-running"));
    if (wantLock) { acquire(); } else { release_(); }
    var awaited = !!(el && el.querySelector("[data-awaited]"));
    document.body.classList.toggle("awaited", awaited);
    if (awaited && wasAwaited === false) { notice(); }
    wasAwaited = awaited;
    showHints();
    keepHold();
  }

  // A panel swapped in while a finger (or key) still holds shows the same secret, until the release: after the
  // swap (the held box replaced) and again after htmx's settle, which puts the server's class back on an element
  // of the same id (it renders closed) while its aria-expanded stays as set: the class must follow.
  function keepHold() {
    if (!heldId || Date.now() >= heldUntil) { return; }
    var now = document.getElementById(heldId);
    if (!now || !now.hasAttribute("data-peek")) { hide(); return; }
    held = now;
    var button = cover(now);
    if (!now.classList.contains("open") || (button && button.getAttribute("aria-expanded") !== "true")) { setOpen(now, true); }
  }

  function soundButtons() {
    var on = soundOn();
    var buttons = document.querySelectorAll("[data-sound-toggle]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].hidden = false;
      buttons[i].setAttribute("aria-pressed", on ? "true" : "false");
    }
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-sound-toggle]");
    if (!button) { return; }
    store(SOUND_KEY, soundOn() ? "0" : "1");
    soundButtons();
    if (soundOn()) { beep(); } // the tap unlocks audio, and the player hears what it sounds like
  });
  // A wake lock may need a user gesture first: any tap asks again while a game runs.
  document.addEventListener("pointerup", acquire);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { acquire(); } });

  // ---- A fold opened on a choice: its peek and buttons come on the screen ----
  // Opening a fold ("Equip a card", "Play equipment") that holds a choice with its own peek box scrolls
  // just enough to show the box and the buttons together, so no finger has to scroll before holding.
  document.addEventListener("toggle", function (event) {
    var fold = event.target;
    if (!fold.open || !fold.querySelector) { return; }
    var choice = fold.querySelector("[data-peek-choice]");
    if (choice && choice.closest("details") === fold) { choice.scrollIntoView({block: "nearest"}); }
  }, true);

  // ---- Picks: the submit waits for a complete choice ----
  function pickComplete(box) {
    var groups = box.querySelectorAll("[data-pick-group]");
    var need = box.getAttribute("data-picks");
    var listed = 0;
    var ticked = 0;
    for (var i = 0; i < groups.length; i++) {
      if (!groups[i].querySelector("input[type=checkbox]")) { continue; }
      listed += 1;
      var n = groups[i].querySelectorAll("input[type=checkbox]:checked").length;
      if (n > 1) { return false; }
      ticked += n;
    }
    return ticked > 0 && ticked === (need === "each" ? listed : parseInt(need, 10));
  }
  function updatePicks(box) {
    var form = box.closest("form");
    if (!form) { return; }
    var buttons = form.querySelectorAll("[data-picks-submit]");
    var complete = pickComplete(box);
    for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = !complete; }
  }
  function allPicks() {
    var boxes = document.querySelectorAll("[data-picks]");
    for (var i = 0; i < boxes.length; i++) { updatePicks(boxes[i]); }
  }
  document.addEventListener("change", function (event) {
    var input = event.target;
    var box = input.closest && input.closest("[data-picks]");
    if (!box) { return; }
    var group = input.closest("[data-pick-group]");
    if (group && input.checked) {
      var others = group.querySelectorAll("input[type=checkbox]:checked");
      for (var i = 0; i < others.length; i++) { if (others[i] !== input) { others[i].checked = false; } }
    }
    updatePicks(box);
  });
  // A page restored from the back/forward cache or a reload may keep ticks: the buttons follow them.
  window.addEventListener("pageshow", allPicks);

  var said = null;
  function sayAgain() {
    var region = document.querySelector("[data-secret-summary]");
    if (!region) { said = null; return; }
    var text = region.textContent;
    if (said === null || text === said) { said = text; return; }
    said = text;
    region.textContent = "";
    window.requestAnimationFrame(function () { region.textContent = text; });
  }

  document.addEventListener("htmx:afterSwap", function () { readPanel(); allPicks(); sayAgain(); });
  document.addEventListener("htmx:afterSettle", keepHold);
  soundButtons();
  readPanel();
  allPicks();
  sayAgain();
})();
