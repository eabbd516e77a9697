// Countdowns ([data-deadline]: the window's end in ms since the epoch; data-server-now: the server's clock when
// drawn, so a phone whose clock is off still counts right): the seconds left, in the page language's digits
// (Persian pages: Persian digits, as the server writes the rest of the page), every 250 ms and after each swap.
// At the deadline it tells table.js ("table:deadline" on <body>), which asks the server for the news.
(function () {
  "use strict";
  var NATIVE = (document.documentElement.lang || "").split("-")[0] === "fa" ? "\u06f0\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9" : null;
  function digits(n) {
    var text = String(n);
    return NATIVE ? text.replace(/[0-9]/g, function (d) { return NATIVE.charAt(parseInt(d, 10)); }) : text;
  }

  function tick() {
    var els = document.querySelectorAll("[data-deadline]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.dataset.serverNow && !el.dataset.skew) {
        el.dataset.skew = String(parseInt(el.dataset.serverNow, 10) - Date.now());
      }
      var left = parseInt(el.dataset.deadline, 10) - (Date.now() + parseInt(el.dataset.skew || "0", 10));
      el.textContent = digits(Math.max(0, Math.ceil(left / 1000)));
      if (left <= 0 && !el.dataset.fired) {
        el.dataset.fired = "1";
        document.body.dispatchEvent(new CustomEvent("table:deadline", { bubbles: true }));
      }
    }
  }
  document.addEventListener("htmx:afterSwap", tick);
  setInterval(tick, 250);
}());
