// Live updates for a table page: the socket carries only the table's revision number.
// On a newer number the page asks htmx to refetch its own partial ("table-changed").
// While the socket is down it polls; it reconnects with jittered backoff; it refetches when
// the phone wakes (visibilitychange); numbers it already has are ignored.
(function () {
  "use strict";
  var body = document.body;
  var code = body.dataset.table;
  var known = parseInt(body.dataset.revision || "0", 10);
  var skew = 0; // server clock minus this clock, from the countdown's data-server-now

  function refresh() {
    if (window.htmx) { window.htmx.trigger(body, "table-changed"); }
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

  document.addEventListener("htmx:afterSwap", function () {
    var el = document.querySelector("[data-revision]");
    if (el) { known = Math.max(known, parseInt(el.dataset.revision || "0", 10)); }
    tickCountdowns();
  });

  function tickCountdowns() {
    var els = document.querySelectorAll("[data-deadline]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.dataset.serverNow && !el.dataset.skew) {
        el.dataset.skew = String(parseInt(el.dataset.serverNow, 10) - Date.now());
      }
      skew = parseInt(el.dataset.skew || "0", 10);
      var left = parseInt(el.dataset.deadline, 10) - (Date.now() + skew);
      el.textContent = String(Math.max(0, Math.ceil(left / 1000)));
      if (left <= 0 && !el.dataset.fired) {
        el.dataset.fired = "1";
        // The server expires the window; ask for the news shortly after the deadline.
        setTimeout(poll, 800);
      }
    }
  }
  setInterval(tickCountdowns, 250);

  if (!code) { return; }

  var socket = null;
  var attempt = 0;
  var pollTimer = null;

  function poll() {
    if (!code) { return; }
    fetch("/t/" + encodeURIComponent(code) + "/rev/", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) { seen(data.v); } })
      .catch(function () {});
  }

  function startPolling() {
    if (!pollTimer) { pollTimer = setInterval(poll, 3000); }
  }

  function stopPolling() {
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    try {
      socket = new WebSocket(scheme + location.host + "/ws/t/" + encodeURIComponent(code) + "/");
    } catch (e) {
      startPolling();
      return;
    }
    socket.onopen = function () { attempt = 0; stopPolling(); body.classList.remove("offline"); };
    socket.onmessage = function (event) {
      try { seen(JSON.parse(event.data).v); } catch (e) { /* not ours */ }
    };
    socket.onclose = function () {
      socket = null;
      body.classList.add("offline");
      startPolling();
      var delay = Math.min(30000, 500 * Math.pow(2, attempt)) * (0.5 + Math.random());
      attempt += 1;
      setTimeout(connect, delay);
    };
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { return; }
    refresh();
    if (!socket) { connect(); }
  });

  connect();
})();
