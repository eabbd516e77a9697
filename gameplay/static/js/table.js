// Live updates for a table page: the socket carries the table's revision number and, for a
// page whose socket URL names its screen (?view=phone|board), what changed on it:
// {"v": n, "f": {id: html}, "t": {id: tag}}, the fragments whose tag moved (as this browser's own
// GET would show them) and the tags of all the screen's fragments. Each is swapped in by its
// element id as htmx would, with no request; a fragment the frame leaves out must be on the page
// with its tag (data-tag), else the page refetches. A number alone makes the page ask htmx to
// refetch ("table-changed"). A phone's moves go over the same socket while it is open, answered
// with the frame (below: "Moves over the socket"); otherwise htmx posts them.
// The server also sends {"hb": 1, "v": n} every HEARTBEAT_MS through its channel layer, n being the
// table's revision as it stands: a page behind it (whatever lost the push) refetches; a socket
// that stays silent for SILENCE_MS is dead (a frozen Redis, a stale connection after sleep)
// and is dropped. A socket closed because a newer one of this browser took its place (another tab,
// close code 4409) is not reopened until the page is looked at again; the page polls meanwhile. While the socket is down the page polls and reconnects with jittered
// backoff; it refetches when the phone wakes (visibilitychange); numbers it already has are
// ignored. While the server or its database is unreachable a "Reconnecting…" bar shows (its
// text is <body data-reconnecting>); when the server answers again the bar goes and the page
// refetches by itself. No inline scripts, no inline styles: the bar is styled in app.css.
// The page names its URLs on <body>: data-rev-url (the poll, from {% url %}) and data-socket-url
// (the socket, from the Channels route "table_socket"); a page without them has no live updates.
(function () {
  "use strict";
  var HEARTBEAT_MS = 15000; // keep in sync with gameplay.live.consumers.HEARTBEAT_SECONDS
  var SILENCE_MS = HEARTBEAT_MS * 2.5 + 2500; // 40 s without any frame: the socket is dead
  var CONNECT_TIMEOUT_MS = 6000; // a handshake that takes longer is given up
  var POLL_MS = 3000; // polling while the socket is down or the bar shows
  var FETCH_TIMEOUT_MS = 5000; // a poll that takes longer counts as a failure
  var DOWN_GRACE_MS = 2500; // socket down this long and no poll answered yet: show the bar
  var BACKOFF_MAX_MS = 8000; // with the jitter below, a recovered server is noticed within 10 s

  var body = document.body;
  var revUrl = body.dataset.revUrl;
  var socketUrl = body.dataset.socketUrl;
  var known = parseInt(body.dataset.revision || "0", 10);
  var refreshQueued = false;

  // Ask htmx for the page's partial; several asks in one turn make one request.
  function refresh() {
    if (refreshQueued) { return; }
    refreshQueued = true;
    setTimeout(function () {
      refreshQueued = false;
      if (window.htmx) { window.htmx.trigger(body, "table-changed"); }
    }, 0);
  }

  function seen(v) {
    if (typeof v === "number" && v > known) { known = v; refresh(); }
  }

  // Never let an older panel replace a newer one (a refresh that left before a move and
  // arrived after it): every panel carries the table revision it was rendered at.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.dataset || !target.dataset.revision) { return; }
    var match = /data-revision="(\d+)"/.exec(event.detail.serverResponse || "");
    if (match && parseInt(match[1], 10) < parseInt(target.dataset.revision, 10)) {
      event.detail.shouldSwap = false;
    }
  });

  function panel() {
    return document.getElementById("private-view") || document.getElementById("public-view");
  }

  function shownRevision() {
    var el = panel();
    return el && el.dataset.revision ? parseInt(el.dataset.revision, 10) : null;
  }

  document.addEventListener("htmx:afterSwap", function () {
    var shown = shownRevision();
    if (shown !== null) { known = Math.max(known, shown); }
  });

  // A push that came while this phone's own tap (or a refresh) was on its way was dropped by
  // htmx (the panel syncs with "drop", so a tap is never queued behind a refresh): once every
  // request has settled, a panel older than the newest number heard is fetched again (a few
  // times at most per number, so a server that cannot answer newer is not asked forever).
  var chased = {};
  function catchUp() {
    var shown = shownRevision();
    if (shown === null || known <= shown) { return; }
    chased[known] = (chased[known] || 0) + 1;
    if (chased[known] <= 3) { refresh(); }
  }
  document.addEventListener("htmx:afterSettle", catchUp);

  // A pushed frame: its fragments swapped in unless the panel shows a revision as new. While a request
  // of this page is on its way (a tap, whose answer may carry a note) it waits for that answer, and is
  // used only if it is still newer; anything that cannot be swapped falls back to a refetch.
  var ROOTS = ["private-view", "public-view", "moderator-view"];
  var waitingPush = null;
  function refetch(v) {
    if (typeof v === "number" && v > known) { known = v; }
    refresh();
  }
  // answer: the frame answers this page's own move (sent over the socket): no request of this page holds it back.
  // One guard orders every frame, answers included: one not newer than the revision shown is dropped (everything
  // a screen shows moves the revision, presence included).
  function pushed(data, answer) {
    if (!panel() || !window.htmx || typeof window.htmx.swap !== "function") { seen(data.v); return; }
    if (!answer && document.querySelector(".htmx-request")) { waitingPush = data; return; }
    var shown = shownRevision();
    if (shown !== null && data.v <= shown) { return; }
    var parts = data.f || {};
    var tags = data.t || {};
    var id;
    for (id in tags) {
      if (Object.prototype.hasOwnProperty.call(tags, id) && !Object.prototype.hasOwnProperty.call(parts, id)) {
        var held = document.getElementById(id);
        if (!held || held.getAttribute("data-tag") !== tags[id]) { refetch(data.v); return; }
      }
    }
    for (id in parts) {
      if (Object.prototype.hasOwnProperty.call(parts, id) && !document.getElementById(id)) { refetch(data.v); return; }
    }
    // The screen shows this revision now; a note answered to an earlier tap is gone, as from a GET (a refused
    // move's answer brings its own, inside the panel it sends).
    var note = document.querySelector("#private-view > [data-test=note]");
    if (note) { note.parentNode.removeChild(note); }
    try {
      for (id in parts) {
        if (!Object.prototype.hasOwnProperty.call(parts, id)) { continue; }
        var el = document.getElementById(id);
        // board.js holds the moderator's drawer back while one of its fields is in use (cancels this event).
        var go = el.dispatchEvent(new CustomEvent("table:fragment", { bubbles: true, cancelable: true }));
        if (go) { window.htmx.swap(el, parts[id], { swapStyle: "outerHTML" }, { eventInfo: { pushed: true } }); }
      }
    } catch (e) {
      refetch(data.v);
      return;
    }
    for (var i = 0; i < ROOTS.length; i++) {
      var root = document.getElementById(ROOTS[i]);
      if (root) { root.setAttribute("data-revision", String(data.v)); }
    }
    known = Math.max(known, data.v);
    // detail.tag: the board's entity tag, as its GET would have had (board.js drops a refetch of the same).
    body.dispatchEvent(new CustomEvent("table-pushed", { bubbles: true, detail: { revision: data.v, tag: data.tag || null } }));
  }
  function pushedLater() {
    var data = waitingPush;
    if (data && !document.querySelector(".htmx-request")) { waitingPush = null; pushed(data); }
  }
  document.addEventListener("htmx:afterSettle", pushedLater);
  document.addEventListener("htmx:afterRequest", function () { setTimeout(pushedLater, 0); });
  document.addEventListener("htmx:afterRequest", function () { setTimeout(catchUp, 0); });

  // A countdown that reached its deadline (countdown.js): the server expires the window; ask for the news shortly after.
  body.addEventListener("table:deadline", function () { setTimeout(poll, 800); });

  if (!revUrl || !socketUrl) { return; }

  var socket = null;
  var socketStarted = 0; // when the current socket was created
  var lastFrame = 0; // when it last opened or delivered a frame
  var downSince = 0; // when the socket went down (0: it is up, or has not been up yet)
  var lastHttpOk = 0; // when the server last answered a poll or an htmx request
  var attempt = 0;
  var reconnectTimer = null;
  var pollTimer = null;
  var polling = false;
  var httpBad = false; // the last poll or htmx request failed or got a 5xx
  var socketBad = false; // the socket has been down a while and no poll has answered
  var shown = false;
  var REPLACED = 4409; // gameplay.live.consumers.CLOSE_REPLACED: a newer socket of this browser took this one's place
  var replaced = false; // then it is not reopened until the page is looked at again (wake)

  // The bar: always in the page (so screen readers announce its text when it appears),
  // empty and invisible while all is well.
  var bar = document.createElement("div");
  bar.className = "reconnecting";
  bar.setAttribute("role", "status");
  bar.setAttribute("aria-live", "polite");
  body.insertBefore(bar, body.firstChild);

  function isOpen() { return socket !== null && socket.readyState === 1; }

  // Moves over the socket: a move form (form.move-form) tapped while the socket is open sends its fields
  // and a number its answer names (gameplay.live.moves). The answer is this screen's frame, swapped in
  // like a push (a refused move's panel holds its note), or {"post": true}: then, as when no answer comes
  // within MOVE_ANSWER_MS or the socket drops first, htmx posts the same form (the same move id: a move
  // is never played twice). While it travels the form is marked (.sending) and its buttons are off.
  var MOVE_ANSWER_MS = 5000;
  var movesSent = 0;
  var movesOut = {}; // number -> {form, post, timer}
  function fieldsOf(form) {
    var fields = {};
    new FormData(form).forEach(function (value, name) {
      if (typeof value !== "string") { return; }
      if (!Object.prototype.hasOwnProperty.call(fields, name)) { fields[name] = value; }
      else if (Array.isArray(fields[name])) { fields[name].push(value); }
      else { fields[name] = [fields[name], value]; }
    });
    return fields;
  }
  function holdForm(form, on) {
    form.classList.toggle("sending", on);
    var buttons = form.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = on; }
  }
  function settleMove(n) {
    var out = movesOut[n];
    if (!out) { return null; }
    delete movesOut[n];
    clearTimeout(out.timer);
    if (document.body.contains(out.form)) { holdForm(out.form, false); }
    return out;
  }
  function postInstead(n) {
    var out = settleMove(n);
    if (out && document.body.contains(out.form)) { out.post(); }
  }
  function postAllOut() {
    for (var n in movesOut) { if (Object.prototype.hasOwnProperty.call(movesOut, n)) { postInstead(n); } }
  }
  // A move's id, given by the phone as the move leaves (the form's move_id is empty as drawn, so the form is the
  // same for every phone of the seat): kept while the move travels, so that a retry (the POST after a socket
  // that did not answer) repeats it and the server plays it once; cleared once answered, so the next tap on
  // the same form is a new move.
  function newMoveId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function moveIdField(form) {
    var field = form && form.elements ? form.elements.namedItem("move_id") : null;
    return field && field.tagName === "INPUT" ? field : null;
  }
  document.addEventListener("submit", function (event) {
    var field = event.target instanceof HTMLFormElement && event.target.matches("form.move-form")
      ? moveIdField(event.target) : null;
    if (field && !field.value) { field.value = newMoveId(); }
  }, true);
  document.addEventListener("htmx:afterRequest", function (event) {
    var field = moveIdField(event.detail.elt);
    if (field && event.detail.xhr && event.detail.xhr.status) { field.value = ""; }
  });
  document.addEventListener("htmx:confirm", function (event) {
    var form = event.detail.elt;
    if (!isOpen() || !socketUrl || socketUrl.indexOf("view=phone") < 0 || !form || !form.matches
        || !form.matches("form.move-form") || !window.htmx || typeof window.htmx.swap !== "function") { return; }
    event.preventDefault();
    if (form.classList.contains("sending")) { return; } // a double tap: the first is on its way
    var n = ++movesSent;
    try {
      socket.send(JSON.stringify({ move: fieldsOf(form), id: n }));
    } catch (e) {
      event.detail.issueRequest(true);
      return;
    }
    holdForm(form, true);
    movesOut[n] = { form: form, post: function () { event.detail.issueRequest(true); },
                    timer: setTimeout(function () { postInstead(n); }, MOVE_ANSWER_MS) };
  });
  // A refused move's note (its answer over the socket), above the panel as the POST's answer shows it; the
  // frame beside it was taken or dropped as any other.
  function showNote(html) {
    var view = document.getElementById("private-view");
    if (!view) { return; }
    var old = view.querySelector(":scope > [data-test=note]");
    if (old) { old.parentNode.removeChild(old); }
    view.insertAdjacentHTML("afterbegin", html);
  }
  function answered(data) {
    var out = settleMove(data.answer);
    if (data.post) {
      if (out && document.body.contains(out.form)) { out.post(); }
      return;
    }
    var field = out ? moveIdField(out.form) : null;
    if (field) { field.value = ""; }
    lastHttpOk = Date.now();
    if (data.f && typeof data.f === "object") { pushed(data, true); } else { seen(data.v); }
    if (typeof data.note === "string") { showNote(data.note); }
    // The tap is answered (and its screen swapped in): for scripts that wait on it, as on htmx:afterSettle.
    body.dispatchEvent(new CustomEvent("table:answered", { bubbles: true, detail: { revision: data.v, status: data.status } }));
  }

  // Show or hide the bar from what is known; poll while the socket is down or the bar shows.
  function update() {
    var down = httpBad || socketBad;
    if (down !== shown) {
      shown = down;
      bar.textContent = down ? (body.dataset.reconnecting || "Reconnecting\u2026") : "";
      bar.classList.toggle("shown", down);
      if (!down) { refresh(); } // catch up on whatever the outage hid
    }
    if (down || !isOpen()) { startPolling(); } else { stopPolling(); }
  }

  function httpOk() {
    var was = shown;
    lastHttpOk = Date.now();
    httpBad = false;
    socketBad = false;
    update();
    if (was && !socket && !replaced) { connect(); } // the server is back: do not wait for the backoff
  }
  function httpFail() { httpBad = true; update(); }

  function poll() {
    if (!revUrl || polling) { return; }
    polling = true;
    var settled = false;
    var abort = typeof AbortController === "function" ? new AbortController() : null;
    function settle(ok) {
      if (settled) { return false; }
      settled = true;
      polling = false;
      clearTimeout(timer);
      if (ok) { httpOk(); } else { httpFail(); }
      return true;
    }
    var timer = setTimeout(function () {
      if (abort) { abort.abort(); }
      settle(false);
    }, FETCH_TIMEOUT_MS);
    fetch(revUrl, { credentials: "same-origin", cache: "no-store", signal: abort ? abort.signal : undefined })
      .then(function (r) {
        if (r.status >= 500) { settle(false); return null; }
        return settle(true) && r.ok ? r.json() : null;
      })
      .then(function (data) { if (data) { seen(data.v); } })
      .catch(function () { settle(false); });
  }

  function startPolling() {
    if (!pollTimer) { pollTimer = setInterval(poll, POLL_MS); }
  }

  function stopPolling() {
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
  }

  // A failed htmx request (a tapped move, a refresh) is news about the server too.
  document.addEventListener("htmx:sendError", httpFail);
  document.addEventListener("htmx:timeout", httpFail);
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status >= 500) { httpFail(); }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status > 0 && xhr.status < 500) { httpOk(); }
  });

  function connect() {
    clearTimeout(reconnectTimer);
    reconnectTimer = null;
    if (socket) { return; }
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    try {
      socket = new WebSocket(scheme + location.host + socketUrl);
    } catch (e) {
      socket = null;
      lost();
      return;
    }
    socketStarted = Date.now();
    socket.onopen = function () {
      lastFrame = Date.now();
      downSince = 0;
      socketBad = false;
      body.classList.remove("offline");
      update();
    };
    socket.onmessage = function (event) {
      lastFrame = Date.now();
      attempt = 0; // reset on a frame, not on open: a server that accepts and drops still backs off
      if (socketBad) { socketBad = false; update(); }
      var data = null;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (data && Object.prototype.hasOwnProperty.call(data, "answer")) { answered(data); return; }
      if (data && data.f && typeof data.f === "object") { pushed(data); } else if (data) { seen(data.v); } // a number, or a heartbeat's
    };
    socket.onclose = function (event) {
      socket = null;
      replaced = event && event.code === REPLACED;
      postAllOut();
      lost();
    };
  }

  // Give up on the current socket now, without waiting for a close handshake that may never come.
  function drop() {
    var s = socket;
    if (!s) { return; }
    socket = null;
    s.onopen = s.onmessage = s.onclose = s.onerror = null;
    try { s.close(); } catch (e) { /* already closed */ }
    postAllOut();
    lost();
  }

  // The socket is down: say so, ask the server at once, poll, and reconnect after a backoff.
  function lost() {
    body.classList.add("offline");
    if (!downSince) {
      var since = downSince = Date.now();
      setTimeout(function () {
        if (downSince === since && !isOpen() && lastHttpOk < since) { socketBad = true; update(); }
      }, DOWN_GRACE_MS);
    }
    poll();
    update();
    if (!reconnectTimer && !replaced) {
      var delay = Math.min(BACKOFF_MAX_MS, 500 * Math.pow(2, Math.min(attempt, 10))) * (0.75 + Math.random() / 2);
      attempt += 1;
      reconnectTimer = setTimeout(connect, delay);
    }
  }

  // The watchdog: an open socket silent for SILENCE_MS, or a handshake that hangs, is dead.
  function watch() {
    if (!socket) { return; }
    var now = Date.now();
    if (isOpen() ? now - lastFrame > SILENCE_MS : now - socketStarted > CONNECT_TIMEOUT_MS) { drop(); }
  }
  setInterval(watch, 2000);

  function wake() {
    replaced = false;
    refresh();
    watch();
    if (!socket) { connect(); }
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { wake(); } });
  window.addEventListener("online", wake);

  connect();
})();
