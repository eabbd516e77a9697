// The board page's own behaviour (templates/gameplay/board.html), next to table.js's live updates.
//
// 1. The moderator's drawer (#moderator-view, in the board's push frames, refetched by htmx when a push
//    cannot say what changed) keeps
//    what the moderator chose: a <details data-keep-open> stays open or closed across swaps and
//    reloads (kept per tab under its key, which names the table and the game: the next table, and the
//    next game's play and end, start as they start), and a swap waits while a field in the fragment is being used (a half-chosen game
//    or option is not wiped by someone joining); it is fetched again once the field is left.
//    During play and at a game's end the open drawer is a sheet at the page's edge, the board making
//    room beside it (board.css): its close button ([data-close-drawer]) or Escape closes it.
// 2. Read aloud: a toggle ([data-read-aloud], off by default, remembered in localStorage) that
//    speaks key public events with speechSynthesis in the page's language. Every phrase is text
//    already on the board, rendered and translated by the server: the newest public log line,
//    the line saying whom the game waits for (when the phase or the active seat changes), the
//    end of the game, and who hosts now. This file holds no words of its own.
// 3. A refetch that brings back the board already shown (same entity tag, also when the board
//    came in a push frame) is not swapped in, so the highlight of the last change plays once,
//    when it happens.
// No inline scripts: the CSP forbids them (the template only marks elements with data-*).
(function () {
  "use strict";
  var OPEN_KEY = "board-open:";
  var SPEAK_KEY = "board-read-aloud";
  var SAID_KEY = "board-said:" + location.pathname;

  function store(kind) {
    try { return window[kind]; } catch (e) { return null; }
  }
  var session = store("sessionStorage");
  var local = store("localStorage");

  // --- 1. The drawer -------------------------------------------------------------------------
  function restoreOpen(root) {
    if (!session || !root) { return; }
    var all = root.querySelectorAll("details[data-keep-open]");
    for (var i = 0; i < all.length; i++) {
      var kept = session.getItem(OPEN_KEY + all[i].dataset.keepOpen);
      if (kept !== null) { all[i].open = kept === "1"; }
    }
  }
  document.addEventListener("toggle", function (event) {
    var el = event.target;
    if (session && el instanceof HTMLDetailsElement && el.dataset.keepOpen) {
      session.setItem(OPEN_KEY + el.dataset.keepOpen, el.open ? "1" : "0");
    }
  }, true);

  function closeDrawer(details) {
    if (details && details.open) { details.open = false; } // the toggle event above remembers it
  }
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-close-drawer]") : null;
    if (button) { closeDrawer(button.closest("details")); }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var sheet = document.querySelector("#moderator-view details[open] > [data-sheet]");
    if (sheet) { closeDrawer(sheet.parentElement); }
  });

  var heldBack = false;
  function busy(root) {
    var active = document.activeElement;
    return !!(root && active && root.contains(active) && /^(SELECT|INPUT|TEXTAREA)$/.test(active.tagName));
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "moderator-view" && busy(target)) {
      event.detail.shouldSwap = false;
      heldBack = true;
    }
  });
  // The same for a drawer that comes in a push frame (table.js asks first with "table:fragment").
  document.addEventListener("table:fragment", function (event) {
    var target = event.target;
    if (target && target.id === "moderator-view" && busy(target)) {
      event.preventDefault();
      heldBack = true;
    }
  });
  document.addEventListener("focusout", function (event) {
    var root = document.getElementById("moderator-view");
    if (!heldBack || !root || !root.contains(event.target)) { return; }
    setTimeout(function () {
      if (heldBack && !busy(document.getElementById("moderator-view")) && window.htmx) {
        heldBack = false;
        window.htmx.trigger(document.body, "table-changed");
      }
    }, 0);
  });

  // --- 2. Read aloud -------------------------------------------------------------------------
  var button = document.querySelector("[data-read-aloud]");
  var synth = "speechSynthesis" in window ? window.speechSynthesis : null;

  function text(el) { return el ? el.textContent.replace(/\s+/g, " ").trim() : ""; }

  // What the board says now, as {name: line}; a line is spoken when it differs from the last one said.
  function lines() {
    var board = document.getElementById("public-view");
    var found = {};
    if (!board) { return found; }
    var outcome = board.querySelector(".outcome");
    if (outcome) {
      found.outcome = [text(outcome.querySelector("h2")), text(outcome.querySelector("[data-test=winners]"))]
        .join(" ").trim();
    }
    found.log = text(board.querySelector(".log > li:first-child"));
    var phase = board.querySelector("[data-phase]");
    var seats = Array.prototype.slice.call(board.querySelectorAll(".seat"));
    var active = seats.indexOf(board.querySelector(".seat.active"));
    // The status line changes with every vote or card played; it is spoken when the step changes
    // (a new phase, or the turn passing to another seat).
    found.step = (phase ? phase.dataset.phase : "") + "|" + active;
    found.status = text(board.querySelector("[data-say=status]"));  // whom the game waits for, as each board marks it
    found.host = text(document.querySelector("[data-say=host]"));
    return found;
  }

  function said() {
    try { return JSON.parse((session && session.getItem(SAID_KEY)) || "{}"); } catch (e) { return {}; }
  }

  function speak(words) {
    if (!synth || !words) { return; }
    var utterance = new SpeechSynthesisUtterance(words);
    var lang = document.documentElement.lang || "en";
    utterance.lang = lang;
    var voices = synth.getVoices ? synth.getVoices() : [];
    for (var i = 0; i < voices.length; i++) {
      if (voices[i].lang && voices[i].lang.toLowerCase().indexOf(lang.toLowerCase()) === 0) {
        utterance.voice = voices[i];
        break;
      }
    }
    synth.speak(utterance);
  }

  function on() { return !!(local && local.getItem(SPEAK_KEY) === "1"); }

  // Speak what changed since the last lines said (kept per tab, so a reload after a control says only news).
  function announce(everything) {
    var now = lines();
    var before = everything ? {} : said();
    if (session) { session.setItem(SAID_KEY, JSON.stringify(now)); }
    if (!on()) { return; }
    var queue = [];
    if (now.host && now.host !== before.host) { queue.push(now.host); }
    if (now.log && now.log !== before.log) { queue.push(now.log); }
    if (now.outcome) {
      if (now.outcome !== before.outcome) { queue.push(now.outcome); }
    } else if (now.status && (everything || now.step !== before.step)) {
      queue.push(now.status);
    }
    for (var i = 0; i < queue.length; i++) { speak(queue[i]); }
    window.__spoken = (window.__spoken || []).concat(queue).slice(-50); // what was said, for tests
  }

  function show() {
    if (!button) { return; }
    button.setAttribute("aria-pressed", on() ? "true" : "false");
  }

  if (button && synth) {
    button.hidden = false;
    show();
    button.addEventListener("click", function () {
      if (!local) { return; }
      local.setItem(SPEAK_KEY, on() ? "0" : "1");
      show();
      if (on()) { announce(true); } else { synth.cancel(); }
    });
  }

  // --- 3. Unchanged refetches are not swapped in -----------------------------------------------
  // A refetch (the socket came back, a number it could not place) revalidates with the entity tag and
  // the browser hands back the same bytes. Swapping them in again would replay the highlight of the last change (board.css
  // .is-new) as if it had just happened, so a response carrying the tag of what is shown is dropped.
  var shownTag = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "public-view" || !event.detail.xhr) { return; }
    var tag = event.detail.xhr.getResponseHeader("ETag");
    if (tag && tag === shownTag) { event.detail.shouldSwap = false; }
    shownTag = tag;
  });
  // A board pushed over the socket (table.js) came with its tag: a refetch of it is not swapped in either.
  document.addEventListener("table-pushed", function (event) { shownTag = event.detail.tag; });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target || event.target; // a pushed fragment's event is fired on the new element
    if (target && target.id === "moderator-view") { restoreOpen(document.getElementById("moderator-view")); }
    setTimeout(function () { announce(false); }, 0);
  });

  restoreOpen(document.getElementById("moderator-view"));
  announce(false);
})();
