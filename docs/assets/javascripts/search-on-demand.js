/*
 * Start search when the reader first reaches for it, not on every page view.
 *
 * Material's script starts its search worker and fetches search/search_index.json (about
 * 0.5 MB per edition) as soon as a page loads. Most page views never search, so this holds
 * both back until a sign of intent: focus or a click in the search box, a tap on the search
 * icon, one of Material's search shortcut keys (/, s, f), or a search query or the words to mark
 * in the address (?q=, ?h=). Search then starts exactly as before ("Initializing search" shows meanwhile). If the
 * index cannot be fetched then (the connection has gone since the page loaded), the search box
 * says so in the page's language.
 *
 * Loaded before Material's bundle (overrides/main.html), so its request goes through here.
 * benchmarks/run.py measures the page weight this saves; tests/browser checks search still works.
 */
(function () {
  "use strict";

  var INDEX = /\/search\/search_index\.json(?:[?#]|$)/;
  // ?q= opens search with a query; ?h= (a result the reader followed) marks the words on the
  // page, with the index.
  var wanted = /[?&][qh]=/.test(window.location.search);
  var waiting = [];

  function want() {
    if (wanted) return;
    wanted = true;
    waiting.splice(0).forEach(function (start) { start(); });
  }

  // Material requests the index with XMLHttpRequest: hold back send() for that one URL.
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.harnessbookSearchIndex = INDEX.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.harnessbookSearchIndex) {
      // Fetched when the reader first searches, the index can meet a connection that has gone
      // since the page loaded: say so, instead of "Initializing search" for ever.
      var request = this;
      request.addEventListener("error", unavailable);
      request.addEventListener("load", function () { if (request.status >= 400) unavailable(); });
      if (!wanted) {
        var args = arguments;
        waiting.push(function () { send.apply(request, args); });
        return undefined;
      }
    }
    return send.apply(this, arguments);
  };

  function unavailable() {
    var meta = document.querySelector(".md-search-result__meta");
    if (!meta) return;
    meta.textContent = document.documentElement.lang === "zh"
      ? "搜索索引没有载入（网络可能断了）。恢复连接后刷新页面，再搜索。"
      : "The search index could not be loaded (the connection may be down). Reload the page once you are online, then search again.";
  }

  // Material also starts its search worker at page load: until the reader searches, it gets a
  // stand-in that keeps its listeners and messages and hands them to the real worker later.
  var RealWorker = window.Worker;
  var SEARCH_WORKER = /\/workers\/search\.[^/]*\.js(?:[?#]|$)/;

  function SearchWorkerStandIn(url, options) {
    var real = null;
    var messages = [];
    var listeners = [];
    waiting.push(function () {
      real = new RealWorker(url, options);
      listeners.forEach(function (listener) { real.addEventListener.apply(real, listener); });
      messages.splice(0).forEach(function (message) { real.postMessage.apply(real, message); });
    });
    this.postMessage = function () {
      if (real) real.postMessage.apply(real, arguments);
      else messages.push(arguments);
    };
    this.addEventListener = function (type, handler, options) {
      if (real) real.addEventListener(type, handler, options);
      else listeners.push([type, handler, options]);
    };
    this.removeEventListener = function (type, handler, options) {
      if (real) real.removeEventListener(type, handler, options);
      listeners = listeners.filter(function (listener) { return listener[0] !== type || listener[1] !== handler; });
    };
    this.terminate = function () {
      if (real) real.terminate();
      messages.length = 0;
    };
  }

  if (typeof RealWorker === "function") {
    window.Worker = function (url, options) {
      if (!wanted && SEARCH_WORKER.test(String(url))) return new SearchWorkerStandIn(url, options);
      return new RealWorker(url, options);
    };
    window.Worker.prototype = RealWorker.prototype;
  }

  function inSearch(target) {
    return target && target.closest && target.closest(".md-search, label[for='__search']");
  }

  document.addEventListener("focusin", function (event) { if (inSearch(event.target)) want(); }, true);
  document.addEventListener("pointerdown", function (event) { if (inSearch(event.target)) want(); }, true);
  document.addEventListener("click", function (event) { if (inSearch(event.target)) want(); }, true);
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "/" || event.key === "s" || event.key === "f" || event.key === "S" || event.key === "F") want();
  }, true);
})();
