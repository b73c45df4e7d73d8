/*
 * The in-browser playground: a "在浏览器中运行" / "Run in browser" control under every
 * request.json example (a json fence titled request.json). It runs the real harnessbook package (packed from
 * src/harnessbook by hooks/playground.py at build time) under Pyodide, in a Web Worker
 * (worker.mjs). Nothing of Pyodide is requested until a reader shows the intent to run: a
 * mouse pointer over a Run control, focus on it, or a click (a finger that swipes across it is
 * no such intent).
 *
 * Everything that comes from the request or the result is put on the page with textContent,
 * never as HTML. The one exception is the figure and the decision table, which the package's
 * own renderer (harnessbook.figure, the same as on the pages) returns as escaped SVG and HTML:
 * they are parsed inert with DOMParser and checked against an allow-list of elements and
 * attributes before they are shown.
 *
 * Where the page shows an example as tabs (figure first, hooks/figures.py), the control goes
 * under the tabs, so it is visible without opening the request.json tab.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var BASE = new URL(".", script ? script.src : document.baseURI); // .../assets/playground/
  // The page links this script as playground.js?v=<version> (hooks/asset_versions.py), a version
  // that covers the worker and the package too: they are loaded with the same query, so that a
  // page never runs with a worker or a package a browser kept from an earlier build.
  var VERSION = script ? new URL(script.src).search : "";
  // The vendored runtime (hooks/playground.py checks this against vendor.json).
  var PYODIDE_DIR = "pyodide-314.0.8/";
  // How long the runtime may take to load before the page gives up: about 7 MB compressed, 14 MB
  // from a server that does not compress, so five minutes lets a 400 kbit/s connection finish
  // either (a minute needed 1 Mbit/s for the 7 MB, and a retry starts the download over). A
  // failed fetch is reported at once; this only ends a stalled load.
  var DEFAULT_TIMEOUT_MS = 300000;
  // How long one run may take, from the moment its request is sent to the started runtime until
  // its answer is to be drawn: a run the worker has not answered by then ends the worker (the
  // next run starts a fresh one), and an answer the page reads later than that is not drawn.
  var DEFAULT_RUN_TIMEOUT_MS = 30000;
  var MAX_PROBLEM_ITEMS = 101; // the builder's bound: 100 problems and one "… and K more" line
  var HEAD_LINES = 4; // result lines drawn one by one (state and phase are among them)

  var LABELS = {
    zh: {
      open: "在浏览器中运行",
      close: "收起浏览器中的运行",
      region: "在浏览器中运行 request.json",
      editor: "请求（request.json，可以修改）",
      hint: "修改后按“运行”，或在编辑框中按 Ctrl+Enter。运行的是本书的 build_context_packet，在你的浏览器里执行，不经过任何服务器。",
      hintTouch: "修改后点“运行”。运行的是本书的 build_context_packet，在你的浏览器里执行，不经过任何服务器。",
      run: "运行",
      reset: "恢复原始请求",
      output: "运行结果",
      loading: "正在加载浏览器中的 Python（Pyodide，压缩后约 7 MB、不压缩约 14 MB，只在第一次运行时下载）…",
      loadingPackage: "正在载入 harnessbook…",
      running: "正在运行 build_context_packet…",
      waiting: "等另一个例子运行完，再运行这一个…",
      rerun: "请求改过了：正在进行的运行一结束，就运行改过的请求…",
      done: "完成：state {state}，phase {phase}。build_context_packet 在浏览器中返回了这个结果（Pyodide {pyodide}，Python {python}）。",
      restored: "已恢复原始请求，还没有运行。",
      resultTitle: "result.json",
      invalidRequest: "InvalidRequestError：请求不符合约定，共 {count} 个问题：",
      problem: "",
      problems: "",
      invalidJson: "这不是合法的 JSON（第 {line} 行第 {column} 列）。解析器的原文：{message}",
      refusedStatus: "完成：构建器拒绝了这个请求，问题列在下面。",
      unreadable: "这个输入无法作为一个 JSON 请求读取。原文：{message}。",
      tooDeep: "这个输入嵌套超过 {levels} 层，无法作为一个 JSON 请求读取。",
      tooLarge: "这个输入太大或嵌套太深，页面里的 Python 无法读取或构建它。",
      unreadableStatus: "没有运行：输入无法读取，原因见下面。",
      moreLines: "… 以及另外 {count} 行（页面上只显示前面的部分；完整结果请用命令行 harnessbook build 取得）",
      moreRows: "决定表只显示前 {shown} 行，另有 {count} 行没有显示",
      line: "",
      lines: "",
      moreChars: "… 以及这些行里另外 {count} 个字符（页面上只显示前面的部分；完整结果请用命令行 harnessbook build 取得）",
      character: "",
      characters: "",
      row: "",
      rows: "",
      invalidJsonStatus: "没有运行：输入不是合法的 JSON，原因见下面。",
      error: "构建器抛出了意外的异常，这是一个缺陷：",
      figureRefused: "图和决定表没有显示：渲染器出了错（没能画出来，或输出含有不允许的元素或属性），这是一个缺陷。结果本身在下面。",
      noType: "（空）",
      timeout: "浏览器中的 Python 在 {seconds} 秒内没有加载完成，已经停止。请检查网络后再试一次。",
      runTimeout: "这次运行在 {seconds} 秒内没有结束，已经停止。",
      stopped: "浏览器中的 Python 在运行中停止了：{message}。再点一次“运行”会重新启动它。",
      wasmMime: "无法启动浏览器中的 Python：服务器发送 pyodide.asm.wasm 时用的类型是“{type}”，浏览器要求 application/wasm。网站维护者需要按这一页配置服务器：",
      wasmCsp: "无法启动浏览器中的 Python：网站的内容安全策略（Content-Security-Policy）不允许编译 WebAssembly，script-src 中需要有 'wasm-unsafe-eval'。网站维护者需要按这一页配置服务器：",
      loadFailed: "无法加载浏览器中的 Python：{message}",
      networkFailed: "无法加载浏览器中的 Python：下载 {file} 时网络连接中断。请检查网络，再点一次“运行”。",
      httpFailed: "无法加载浏览器中的 Python：服务器对 {file} 的回答是 HTTP {status}。网站可能已经更新或正在更新：请重新加载这个页面，或稍后再点“运行”；一直如此的话，需要网站维护者检查这个文件。",
      moduleFailed: "无法启动浏览器中的 Python：脚本模块（.mjs）没有载入。可能是网络中断（请检查网络后再试一次），也可能是服务器没有以 JavaScript（text/javascript）发送 .mjs 文件；如果是后者，网站维护者需要按这一页配置服务器：",
      // The link under a failure to start: the hosting page's title and the section that says
      // what to fix (tests/browser/test_playground.py checks both against the built page).
      hostingPage: "发布与托管本书网站",
      hostingSections: { "wasm-mime": ".wasm 必须以 application/wasm 发送", "content-security-policy": "内容安全策略" },
      workerUnsupported: "这个浏览器不支持模块化的 Web Worker，无法在页面中运行例子。",
      fileURL: "以文件方式（file://）打开的页面无法启动浏览器中的 Python：浏览器不允许这样的页面启动 Worker。请用 Web 服务器提供这个目录，例如 python3 -m http.server。",
      workerCsp: "无法启动浏览器中的 Python：网站的内容安全策略（Content-Security-Policy）不允许这个页面启动 Web Worker，worker-src 中需要有 'self'。网站维护者需要按这一页配置服务器：",
      fetchCsp: "无法启动浏览器中的 Python：网站的内容安全策略（Content-Security-Policy）不允许下载 {file}，{directive} 中需要有 'self'。网站维护者需要按这一页配置服务器：",
    },
    en: {
      open: "Run in browser",
      close: "Hide the in-browser run",
      region: "Run request.json in the browser",
      editor: "Request (request.json, editable)",
      hint: "Edit it, then press Run, or Ctrl+Enter in the editor. This runs the book's build_context_packet in your browser; nothing is sent to a server.",
      hintTouch: "Edit it, then tap Run. This runs the book's build_context_packet in your browser; nothing is sent to a server.",
      run: "Run",
      reset: "Restore the original request",
      output: "Result",
      loading: "Loading Python for the browser (Pyodide, about 7 MB compressed or 14 MB uncompressed, downloaded on the first run only)…",
      loadingPackage: "Loading harnessbook…",
      running: "Running build_context_packet…",
      waiting: "Waiting for another example's run to finish…",
      rerun: "The request has changed: it runs as soon as the run under way has finished…",
      done: "Done: state {state}, phase {phase}. build_context_packet returned this result in your browser (Pyodide {pyodide}, Python {python}).",
      restored: "The original request is back; it has not run yet.",
      resultTitle: "result.json",
      invalidRequest: "InvalidRequestError: the request breaks the contract ({count} {problems}):",
      problem: "problem",
      problems: "problems",
      invalidJson: "This is not valid JSON (line {line}, column {column}): {message}",
      refusedStatus: "Done: the builder refused this request; the problems are listed below.",
      unreadable: "This input cannot be read as one JSON request: the {message}.",
      tooDeep: "This input cannot be read as one JSON request: it is nested more than {levels} levels deep.",
      tooLarge: "This input is too large or too deeply nested for the Python in this page to read or build.",
      unreadableStatus: "Not run: the input cannot be read; see below.",
      moreLines: "… and {count} more {lines} (the page shows the beginning only; harnessbook build gives the full result)",
      moreRows: "The decision table shows its first {shown} rows only; {count} more {rows} not shown.",
      line: "line",
      lines: "lines",
      moreChars: "… and {count} more {characters} in these lines (the page shows the beginning only; harnessbook build gives the full result)",
      character: "character",
      characters: "characters",
      row: "row",
      rows: "rows",
      invalidJsonStatus: "Not run: the input is not valid JSON; see below.",
      error: "The builder raised an unexpected exception, which is a bug:",
      figureRefused: "The figure and the decision table are not shown: the renderer failed (it raised, or its output held an element or attribute that is not allowed), which is a bug. The result itself is below.",
      noType: "(none)",
      timeout: "Python for the browser did not finish loading within {seconds} seconds and was stopped. Check your connection and try again.",
      runTimeout: "This run did not finish within {seconds} seconds and was stopped.",
      stopped: "Python for the browser stopped while it ran: {message}. Press Run to start it again.",
      wasmMime: "Python for the browser cannot start: the server sent pyodide.asm.wasm as “{type}”, and browsers require application/wasm. Whoever hosts this site must configure the server as described here:",
      wasmCsp: "Python for the browser cannot start: the site's Content Security Policy does not allow compiling WebAssembly; script-src needs 'wasm-unsafe-eval'. Whoever hosts this site must configure the server as described here:",
      loadFailed: "Python for the browser could not be loaded: {message}",
      networkFailed: "Python for the browser could not be loaded: the connection failed while {file} was downloading. Check your connection and press Run again.",
      httpFailed: "Python for the browser could not be loaded: the server answered HTTP {status} for {file}. The site may have been updated, or be updating: reload the page, or press Run again later; if this persists, whoever hosts the site should check the file.",
      moduleFailed: "Python for the browser cannot start: a script module (.mjs) did not load. Either the network failed (check your connection and try again), or the server does not send .mjs files as JavaScript (text/javascript); if so, whoever hosts this site must configure the server as described here:",
      hostingPage: "Publishing and hosting the book",
      hostingSections: { "wasm-mime": ".wasm must be served as application/wasm", "content-security-policy": "Content Security Policy" },
      workerUnsupported: "This browser does not support module Web Workers, so the examples cannot run in the page.",
      fileURL: "Python for the browser cannot start from a page opened as a file (file://): browsers do not start workers there. Serve the folder with a web server, for example python3 -m http.server.",
      workerCsp: "Python for the browser cannot start: the site's Content Security Policy does not allow this page to start a Web Worker; worker-src needs 'self'. Whoever hosts this site must configure the server as described here:",
      fetchCsp: "Python for the browser cannot start: the site's Content Security Policy does not allow downloading {file}; {directive} needs 'self'. Whoever hosts this site must configure the server as described here:",
    },
  };

  function edition() {
    var lang = (document.documentElement.getAttribute("lang") || "").toLowerCase();
    return lang === "zh" || lang.indexOf("zh-") === 0 ? "zh" : "en";
  }

  var T = LABELS[edition()];

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  }

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      node.setAttribute(name, attributes[name]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Where the hosting page says how to fix a failure to start: the Content-Security-Policy
  // section for a policy that forbids WebAssembly, the section on types (.wasm and .mjs) otherwise.
  var HOSTING_SECTION = { "wasm-csp": "content-security-policy", "worker-csp": "content-security-policy", csp: "content-security-policy", "wasm-mime": "wasm-mime", module: "wasm-mime" };

  function hostingLink(kind) {
    var root = new URL("../../", BASE); // assets/playground/ -> site root
    var section = HOSTING_SECTION[kind];
    var href = new URL((edition() === "zh" ? "" : "en/") + "howto/playground-hosting/#" + section, root).href;
    return element("a", { href: href }, T.hostingPage + " › " + T.hostingSections[section]);
  }

  // Both limits can be set before or after the script loads, as window.harnessbookPlayground =
  // {timeoutMs, runTimeoutMs}, in milliseconds (the browser tests set them); each is read when
  // it starts counting.
  function configuredLimit(name, fallback) {
    var configured = window.harnessbookPlayground && window.harnessbookPlayground[name];
    return typeof configured === "number" && configured > 0 ? configured : fallback;
  }

  function timeLimit() {
    return configuredLimit("timeoutMs", DEFAULT_TIMEOUT_MS);
  }

  function runTimeLimit() {
    return configuredLimit("runTimeoutMs", DEFAULT_RUN_TIMEOUT_MS);
  }

  function runTimeoutError(limit) {
    return new LoadError("run-timeout", format(T.runTimeout, { seconds: limit / 1000 }));
  }

  // ------------------------------------------------------------------ the runtime (one per page)

  var runtime = null; // {worker, ready: Promise, pending: Map}

  function LoadError(kind, message, detail) {
    this.kind = kind;
    this.message = message;
    this.detail = detail || {};
  }

  function startRuntime() {
    if (runtime !== null) return runtime;
    var state = {
      worker: null,
      pending: new Map(),
      nextId: 1,
      info: null,
      listeners: [],
      queue: Promise.resolve(), // runs wait their turn on it (runRequest)
      runs: 0, // runs waiting their turn or sent to the worker, not yet answered
      error: null, // why the worker was ended, once it was
    };
    runtime = state;
    state.ready = new Promise(function (resolve, reject) {
      // A page opened as a file: browsers start no worker there, and the SecurityError below
      // would read as the policy of a site that sent none.
      if (location.protocol === "file:") return reject(new LoadError("file", T.fileURL));
      var worker;
      // A policy that refuses the worker's script: Chromium then reports a violation on the
      // document and an error on the worker that says nothing more, which would read as a
      // module that did not load.
      var refusedByPolicy = false;
      function onViolation(event) {
        if (/^(worker|script|child)-src/.test(event.effectiveDirective || event.violatedDirective || "") && String(event.blockedURI).indexOf("worker.mjs") !== -1) {
          refusedByPolicy = true;
        }
      }
      document.addEventListener("securitypolicyviolation", onViolation);
      var workerURL = new URL("worker.mjs" + VERSION, BASE);
      try {
        worker = new Worker(workerURL, { type: "module" });
      } catch (error) {
        // A browser may refuse the worker here, as a SecurityError, when the policy's worker-src
        // does not allow it (Chromium reports it as a violation and an error event instead, see
        // onViolation): that is the host's configuration, not a browser without module workers.
        document.removeEventListener("securitypolicyviolation", onViolation);
        var refused = error && error.name === "SecurityError";
        reject(refused ? new LoadError("worker-csp", T.workerCsp) : new LoadError("unsupported", T.workerUnsupported));
        return;
      }
      state.worker = worker;
      var seconds = Math.round(timeLimit() / 1000);
      var timer = setTimeout(function () {
        fail(new LoadError("timeout", format(T.timeout, { seconds: seconds })));
      }, timeLimit());

      function fail(error) {
        if (state.error !== null) return; // the first reason stands
        document.removeEventListener("securitypolicyviolation", onViolation);
        clearTimeout(timer);
        state.error = error; // runs still queued go to a fresh runtime instead (runRequest)
        worker.terminate();
        if (runtime === state) runtime = null; // the next click starts afresh
        state.pending.forEach(function (entry) {
          entry.reject(error);
        });
        state.pending.clear();
        reject(error);
      }
      state.fail = fail;

      worker.addEventListener("message", function (event) {
        var message = event.data;
        if (message.type === "progress") {
          state.stage = message.stage; // for a click that comes after a prefetch began
          state.listeners.forEach(function (listener) {
            listener(message.stage);
          });
        } else if (message.type === "ready") {
          document.removeEventListener("securitypolicyviolation", onViolation);
          clearTimeout(timer);
          state.info = message;
          state.listeners = [];
          // "cold" or "snapshot" (the worker started from the snapshot an earlier page stored).
          document.documentElement.setAttribute("data-playground-runtime", message.start);
          // Standard-library modules the start compiled from source (none: see worker.mjs, STDLIB).
          document.documentElement.setAttribute("data-playground-source-modules", message.sourceModules.join(" "));
          resolve(message);
        } else if (message.type === "init-error") {
          if (message.reason === "wasm-mime") {
            fail(new LoadError("wasm-mime", format(T.wasmMime, { type: message.contentType || T.noType }), message));
          } else if (message.reason === "wasm-csp") {
            fail(new LoadError("wasm-csp", T.wasmCsp, message));
          } else if (message.reason === "module") {
            fail(new LoadError("module", T.moduleFailed, message));
          } else if (message.reason === "csp") {
            fail(new LoadError("csp", format(T.fetchCsp, { file: message.file, directive: message.directive }), message));
          } else if (message.reason === "network") {
            fail(new LoadError("network", format(T.networkFailed, { file: message.file }), message));
          } else if (message.reason === "http") {
            fail(new LoadError("http", format(T.httpFailed, { file: message.file, status: message.status }), message));
          } else {
            fail(new LoadError("load", format(T.loadFailed, { message: message.message })));
          }
        } else if (message.type === "outcome") {
          var entry = state.pending.get(message.id);
          if (entry) {
            state.pending.delete(message.id);
            state.runs -= 1;
            // The worker has answered and is idle: the run's limit now only decides whether
            // its result is drawn (see go()), and never ends the worker another run may use.
            clearTimeout(entry.timer);
            entry.resolve({ outcome: message.outcome, deadline: entry.deadline, limit: entry.limit });
            if (message.outcome.restart) {
              // The worker ran out of stack or memory, or Pyodide itself failed: it is ended
              // now, before another example's run is sent to it (that run starts a fresh one).
              // No run is waiting on its answer, so no reader sees this error's words.
              fail(new LoadError("restart", "the runtime was ended after a run that exhausted it"));
            }
          }
        }
      });
      worker.addEventListener("error", function (event) {
        // The worker script itself did not load or run (a module worker served with a
        // non-JavaScript type, or missing, reports no more detail than this).
        event.preventDefault();
        if (state.info === null) {
          // One task later: the policy's violation event may come after the worker's error.
          setTimeout(function () {
            if (refusedByPolicy) return fail(new LoadError("worker-csp", T.workerCsp));
            // Asked for again, to tell a missing file or a failed connection from a wrong type.
            fetch(workerURL).then(function (response) {
              if (!response.ok) return new LoadError("http", format(T.httpFailed, { file: "worker.mjs", status: response.status }));
              return new LoadError("module", T.moduleFailed, { message: event.message || "worker.mjs" });
            }, function () {
              return new LoadError("network", format(T.networkFailed, { file: "worker.mjs" }));
            }).then(fail);
          }, 0);
        } else {
          // The runtime had started: it failed while it ran a request (or between two runs,
          // when no reader sees this). The next run starts a fresh one.
          fail(new LoadError("stopped", format(T.stopped, { message: event.message || "worker.mjs" })));
        }
      });
      worker.postMessage({
        type: "init",
        indexURL: new URL(PYODIDE_DIR, BASE).href,
        packageURL: new URL("harnessbook.zip" + VERSION, BASE).href,
      });
    });
    return state;
  }

  function runRequest(text, onProgress) {
    var state = startRuntime();
    if (state.info === null) state.listeners.push(onProgress);
    // Counted at the click, so that a run clicked in the same moment as another's waits from
    // its first word (start() reads the count too).
    var waits = state.runs > 0;
    state.runs += 1;
    return state.ready.then(function (info) {
      // The worker runs one request at a time. A run is sent once the run before it (another
      // example's) has answered, so its time limit counts its own run, not its wait.
      if (waits) onProgress("wait");
      var turn = state.queue.then(function () {
        // The worker was ended while this run waited (another run's limit, or its restart):
        // the run goes to a fresh runtime, as the next click would.
        if (state.error !== null) return { retry: true };
        onProgress("run"); // the runtime is up: the status says the request runs now
        return new Promise(function (resolve, reject) {
          var id = state.nextId++;
          var limit = runTimeLimit();
          var timer = setTimeout(function () {
            state.fail(runTimeoutError(limit));
          }, limit);
          state.pending.set(id, { resolve: resolve, reject: reject, timer: timer, deadline: Date.now() + limit, limit: limit });
          state.worker.postMessage({ type: "run", id: id, text: text, lang: edition() });
        });
      });
      state.queue = turn.catch(function () {});
      return turn.then(function (answer) {
        if (answer.retry) return runRequest(text, onProgress);
        answer.info = info;
        return answer;
      });
    });
  }

  // ------------------------------------------------------------------ one playground per example

  var count = 0;

  function requestBlocks() {
    var blocks = [];
    document.querySelectorAll(".md-typeset div.highlight").forEach(function (block) {
      var title = block.querySelector(":scope > .filename");
      var code = block.querySelector("pre > code");
      if (title && code && title.textContent.trim() === "request.json") blocks.push(block);
    });
    return blocks;
  }

  function attach(block) {
    var number = ++count;
    var id = "hb-playground-" + number;
    var original = block.querySelector("pre > code").textContent.replace(/\n$/, "");

    var toggle = element("button", {
      type: "button",
      class: "hb-playground__button hb-playground__open",
      "aria-expanded": "false",
      "aria-controls": id,
      "data-playground-open": "",
    }, T.open);
    var bar = element("div", { class: "hb-playground__bar" });
    bar.appendChild(toggle);
    // A field page has six of these controls with one name: each is described by the sentence
    // that introduces its example, so a screen reader's list of buttons tells them apart.
    var intro = anchorOf(block).previousElementSibling;
    if (intro && /^(P|H[2-6])$/.test(intro.tagName)) {
      if (!intro.id) intro.id = id + "-example";
      toggle.setAttribute("aria-describedby", intro.id);
    }

    var panel = null;

    function build() {
      panel = element("div", { class: "hb-playground", id: id, role: "group", "aria-label": T.region, hidden: "" });

      var label = element("label", { class: "hb-playground__label", for: id + "-input" }, T.editor);
      var lines = original.split("\n").length;
      var editor = element("textarea", {
        id: id + "-input",
        class: "hb-playground__editor",
        rows: String(Math.min(Math.max(lines, 4), 24)),
        spellcheck: "false",
        autocapitalize: "off",
        autocomplete: "off",
        "aria-describedby": id + "-hint",
        "data-playground-editor": "",
      });
      editor.value = original;
      // A touch screen's keyboard has no Ctrl+Enter to offer.
      var touch = window.matchMedia("(pointer: coarse) and (hover: none)").matches;
      var hint = element("p", { class: "hb-playground__hint", id: id + "-hint" }, touch ? T.hintTouch : T.hint);

      var run = element("button", { type: "button", class: "hb-playground__button hb-playground__button--primary", "data-playground-run": "" }, T.run);
      var reset = element("button", { type: "button", class: "hb-playground__button", "data-playground-reset": "" }, T.reset);
      var actions = element("div", { class: "hb-playground__actions" });
      actions.appendChild(run);
      actions.appendChild(reset);

      var status = element("p", { class: "hb-playground__status", role: "status", "data-playground-status": "" });
      var output = element("div", {
        class: "hb-playground__output",
        role: "group",
        "aria-label": T.output,
        "data-playground-output": "",
        hidden: "",
      });

      [label, editor, hint, actions, status, output].forEach(function (node) {
        panel.appendChild(node);
      });
      bar.insertAdjacentElement("afterend", panel);

      var busy = false;
      // Restore makes a run still under way stale: its outcome is the edited request's, and is
      // not shown under the original one.
      var generation = 0;
      var running = null; // the text of the run under way, and its generation
      var runningGeneration = -1;
      var again = false; // asked to run again while a run was under way
      function go() {
        if (busy) {
          // Asked again while a run is under way (often the panel's first run, while the runtime
          // starts): the same request is already running; an edited (or restored) one makes that
          // run stale, and the editor's text runs as soon as it has answered.
          if (editor.value === running && runningGeneration === generation) return;
          generation++;
          again = true;
          runState();
          var ready = runtime && runtime.info;
          setStatus(status, ready ? T.rerun : stageText(runtime && runtime.stage), "loading");
          return;
        }
        busy = true;
        // Busy is the output's, not the panel's: a screen reader may hold back what changes
        // inside a busy element, and the status, in the panel, speaks during the load.
        output.setAttribute("aria-busy", "true");
        panel.setAttribute("data-playground-busy", "");
        var text = editor.value;
        running = text;
        runningGeneration = generation;
        runState();
        if (status.textContent === "") {
          // A live region that appears with its words already in it is not read out by every
          // screen reader: the panel has just been shown, so its first words, and all that
          // follows them, come a task later.
          setTimeout(function () {
            start(text);
          }, 0);
        } else {
          start(text);
        }
      }

      // Run is unavailable (aria-disabled) only while the very request in the editor runs:
      // once the reader edits it, Run queues the edited one (go()).
      function runState() {
        if (busy && !again && editor.value === running && runningGeneration === generation) {
          run.setAttribute("aria-disabled", "true");
        } else {
          run.removeAttribute("aria-disabled");
        }
      }
      editor.addEventListener("input", runState);

      function stageText(stage) {
        return { run: T.running, wait: T.waiting, package: T.loadingPackage }[stage] || T.loading;
      }

      function start(text) {
        var ready = runtime && runtime.info;
        var mine = generation;
        setStatus(status, stageText(ready ? (runtime.runs > 0 ? "wait" : "run") : runtime && runtime.stage), "loading");
        bringIntoView(status);
        runRequest(text, function (stage) {
          // Also while an edited request waits for this run: the runtime's start is its too.
          if (mine === generation || again) setStatus(status, stageText(stage), "loading");
        }).then(function (answer) {
          if (mine !== generation) return undefined;
          if (Date.now() > answer.deadline) {
            // The limit covers drawing too: a result that arrives too late is not drawn. The
            // worker has answered, so it is left to the runs that follow.
            throw runTimeoutError(answer.limit);
          }
          return show(output, status, answer.outcome, answer.info);
        }).catch(function (error) {
          // A runtime that did not start is said even when this run went stale: a queued run
          // would only start the whole load again, and a restored request cannot run either.
          var notStarted = error instanceof LoadError && ["run-timeout", "restart", "stopped"].indexOf(error.kind) === -1;
          if (notStarted) again = false;
          else if (mine !== generation) return;
          output.hidden = true;
          output.replaceChildren();
          output.removeAttribute("data-outcome");
          setStatus(status, error && error.message ? error.message : String(error), "failed", error && error.kind);
          if (error && Object.prototype.hasOwnProperty.call(HOSTING_SECTION, error.kind)) {
            status.appendChild(document.createTextNode(" "));
            status.appendChild(hostingLink(error.kind));
          }
        }).then(function () {
          busy = false;
          running = null;
          runState();
          panel.setAttribute("data-playground-runs", String(Number(panel.getAttribute("data-playground-runs") || 0) + 1));
          run.removeAttribute("aria-disabled");
          output.removeAttribute("aria-busy");
          panel.removeAttribute("data-playground-busy");
          if (again) {
            again = false;
            go();
          }
        });
      }

      run.addEventListener("click", go);
      editor.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          go();
        }
      });
      // As with the open control: a tap puts the request back without focusing the editor,
      // which would raise a phone's keyboard over it.
      var resetTapped = false;
      reset.addEventListener("pointerdown", function (event) {
        resetTapped = event.pointerType === "touch";
      });
      reset.addEventListener("click", function () {
        // As an edit the reader can undo (Ctrl+Z brings the edited request back) where the
        // browser offers one: setting the value empties the undo history. Not after a tap,
        // which would focus the editor and raise a phone's keyboard over the panel.
        var undoable = false;
        if (!resetTapped) {
          editor.focus({ preventScroll: true });
          editor.select();
          try {
            undoable = document.execCommand("insertText", false, original) && editor.value === original;
          } catch (error) {
            undoable = false;
          }
        }
        if (!undoable) editor.value = original;
        if (resetTapped) editor.scrollTop = 0;
        else showFromTheTop(editor);
        resetTapped = false;
        // Said out loud, and the result of the edited request is no longer shown as this one's,
        // now or when a run still under way answers; a run queued after it is dropped.
        generation++;
        again = false;
        runState();
        output.replaceChildren();
        output.hidden = true;
        output.removeAttribute("data-outcome");
        setStatus(status, T.restored, "restored");
      });
      panel.go = go;
      panel.editor = editor;
    }

    // A mouse pointer over the control, or focus on it, is the reader's intent to run: the
    // runtime starts loading then (in its worker), so the click finds it ready or nearly so.
    // Nothing of Pyodide is fetched before such a sign. A finger or a pen that enters the
    // control is no such sign: it enters it too when a swipe that scrolls the page starts on
    // it, and a tap that follows is a click, which loads the runtime itself. A failed start is
    // reported by the click. A reader who asked the browser to save data (Save-Data) downloads
    // the runtime only on the click.
    function prefetch() {
      if (navigator.connection && navigator.connection.saveData) return;
      startRuntime().ready.catch(function () {});
    }
    function pointed(event) {
      if (event.pointerType !== "mouse") return; // a touch leaves the listener for a mouse
      toggle.removeEventListener("pointerenter", pointed);
      prefetch();
    }
    toggle.addEventListener("pointerenter", pointed);
    toggle.addEventListener("focus", prefetch, { once: true });

    // A tap opens the panel without focusing the editor: on a phone, focus would raise the
    // on-screen keyboard over the result that is being computed.
    var tapped = false;
    toggle.addEventListener("pointerdown", function (event) {
      tapped = event.pointerType === "touch";
    });

    toggle.addEventListener("click", function () {
      var first = panel === null;
      if (first) build();
      var open = panel.hidden;
      panel.hidden = !open;
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      toggle.textContent = open ? T.close : T.open;
      if (open) {
        if (!tapped) showFromTheTop(panel.editor);
        if (first) panel.go(); // the reader asked to run: run the example as shown
      }
      tapped = false;
    });

    anchorOf(block).insertAdjacentElement("afterend", bar);
  }

  // Focus the editor on the request's first line: a textarea whose value was set by script has
  // its caret, and its scroll, at the end, where a reader sees only closing brackets. The page
  // does not scroll: the editor opens right under the control the reader just used.
  function showFromTheTop(editor) {
    editor.focus({ preventScroll: true });
    editor.setSelectionRange(0, 0);
    editor.scrollTop = 0;
  }

  // The element the control goes after: the example's tabs when the page shows the example as
  // a figure with the request one tab away, else the request block itself.
  function anchorOf(block) {
    var tabs = block.closest(".tabbed-set");
    if (tabs && tabs.querySelector("[data-hb-figure], [data-hb-problems]")) return tabs;
    return block;
  }

  // ------------------------------------------------------------------ the figure, parsed inert

  var SVG_ELEMENTS = ["svg", "title", "desc", "rect", "text", "path"];
  var HTML_ELEMENTS = ["table", "caption", "thead", "tbody", "tr", "th", "td", "code", "bdi", "p"];
  var ATTRIBUTES = /^(xmlns|class|role|lang|viewBox|width|height|x|y|rx|d|fill|stroke|stroke-dasharray|font-family|font-size|font-weight|text-anchor|data-mono|scope)$/;

  // Every element and attribute must be one the renderer writes: anything else means the
  // renderer let markup through, and nothing is shown.
  function inert(root, allowed) {
    var nodes = [root].concat(Array.prototype.slice.call(root.querySelectorAll("*")));
    return nodes.every(function (node) {
      if (allowed.indexOf(node.localName) === -1) return false;
      return Array.prototype.every.call(node.attributes, function (attribute) {
        return ATTRIBUTES.test(attribute.name);
      });
    });
  }

  function figureNodes(outcome) {
    if (typeof outcome.svg !== "string" || typeof outcome.table !== "string") return null;
    var svgDoc = new DOMParser().parseFromString(outcome.svg, "image/svg+xml");
    var svg = svgDoc.documentElement;
    if (svgDoc.getElementsByTagName("parsererror").length || svg.localName !== "svg" || !inert(svg, SVG_ELEMENTS)) return null;
    var tableDoc = new DOMParser().parseFromString(outcome.table, "text/html");
    var body = tableDoc.body;
    var parts = Array.prototype.slice.call(body.children);
    if (!parts.every(function (part) { return inert(part, HTML_ELEMENTS); })) return null;
    var figure = element("figure", { class: "hb-figure", "data-hb-figure": "packet", "data-playground-figure": "" });
    figure.appendChild(document.importNode(svg, true));
    var table = element("div", { class: "hb-decisions", "data-playground-table": "" });
    parts.forEach(function (part) {
      var node = document.importNode(part, true);
      if (node.localName === "table") {
        // In Material's own wrapper, as the page's tables are: it scrolls sideways on a phone,
        // with the shadows that say so (extra.css), and a11y.js makes it focusable.
        var scroll = element("div", { class: "md-typeset__scrollwrap" });
        var inner = element("div", { class: "md-typeset__table" });
        inner.appendChild(node);
        scroll.appendChild(inner);
        node = scroll;
      }
      table.appendChild(node);
    });
    return [figure, table];
  }

  function setStatus(status, text, kind, reason) {
    // The status is a live region: the same words written again were announced again (the
    // loading message twice on a first run, "Running…" twice on a later one).
    if (status.textContent === text && status.getAttribute("data-status") === kind) return;
    status.replaceChildren(document.createTextNode(text));
    status.setAttribute("data-status", kind);
    if (reason) status.setAttribute("data-reason", reason);
    else status.removeAttribute("data-reason");
  }

  // On a phone the editor fills the screen and the Run control sits at its bottom: the status
  // and the result came below the fold, and nothing seemed to happen. A status below the screen
  // is scrolled to its middle, the result's start under it.
  function bringIntoView(node) {
    var box = node.getBoundingClientRect();
    if (box.bottom <= window.innerHeight) return;
    window.scrollBy({ top: box.top - window.innerHeight / 2 });
  }

  function nextTask() {
    return new Promise(function (resolve) {
      setTimeout(resolve, 0);
    });
  }

  // The result's JSON: the top-level state and phase lines highlighted, the rest as one text
  // node, however long, so drawing costs the same for any result.
  function drawJson(output, outcome) {
    var figure = element("div", { class: "hb-playground__json highlight" });
    figure.appendChild(element("span", { class: "filename" }, T.resultTitle));
    var pre = element("pre", { tabindex: "0" });
    var code = element("code", { "data-playground-result": "" });
    // The top-level state and phase lines (at the top) are highlighted; everything after the
    // first lines is one text node, however long, so drawing costs the same for any result.
    var text = outcome.text;
    var cut = 0;
    for (var n = 0; n < HEAD_LINES && cut !== -1; n++) cut = text.indexOf("\n", cut + (n > 0 ? 1 : 0));
    var head = cut === -1 ? text : text.slice(0, cut);
    head.split("\n").forEach(function (line, index) {
      if (index > 0) code.appendChild(document.createTextNode("\n"));
      if (/^  "(state|phase)": /.test(line)) {
        code.appendChild(element("mark", { class: "hb-playground__key" }, line));
      } else {
        code.appendChild(document.createTextNode(line));
      }
    });
    if (cut !== -1) code.appendChild(document.createTextNode(text.slice(cut)));
    pre.appendChild(code);
    figure.appendChild(pre);
    output.appendChild(figure);
    if (outcome.moreChars > 0) {
      output.appendChild(element("p", { class: "hb-playground__more", "data-playground-more-chars": "" }, format(T.moreChars, { count: outcome.moreChars, characters: outcome.moreChars === 1 ? T.character : T.characters })));
    }
    if (outcome.moreLines > 0) {
      output.appendChild(element("p", { class: "hb-playground__more", "data-playground-more": "" }, format(T.moreLines, { count: outcome.moreLines, lines: outcome.moreLines === 1 ? T.line : T.lines })));
    }
  }

  function show(output, status, outcome, info) {
    output.replaceChildren();
    output.hidden = false;
    output.setAttribute("data-outcome", outcome.kind);
    if (outcome.kind === "result") {
      setStatus(status, format(T.done, { state: outcome.state, phase: outcome.phase, pyodide: info.pyodide, python: info.python }), "done");
      var summary = element("p", { class: "hb-playground__summary" });
      summary.appendChild(element("span", { class: "hb-playground__badge hb-playground__badge--" + outcome.state, "data-playground-state": outcome.state }, "state: " + outcome.state));
      summary.appendChild(document.createTextNode(" "));
      summary.appendChild(element("span", { class: "hb-playground__badge hb-playground__badge--phase", "data-playground-phase": outcome.phase }, "phase: " + outcome.phase));
      output.appendChild(summary);

      // Drawn in three tasks (the figure, the decision table, the JSON), so that a large result
      // never holds the page for one long task.
      var drawn = figureNodes(outcome);
      if (drawn === null) {
        output.appendChild(element("p", { class: "hb-playground__error-title", "data-playground-figure-refused": "" }, T.figureRefused));
      } else {
        output.appendChild(drawn[0]);
      }
      return nextTask().then(function () {
        if (drawn !== null) {
          output.appendChild(drawn[1]);
          if (outcome.moreRows > 0) {
            output.appendChild(element("p", { class: "hb-playground__more", "data-playground-more-rows": "" }, format(T.moreRows, { count: outcome.moreRows, shown: outcome.tableRows, rows: outcome.moreRows === 1 ? T.row : T.rows })));
          }
        }
        return nextTask();
      }).then(function () {
        drawJson(output, outcome);
      });
    } else if (outcome.kind === "invalid-request") {
      // The builder keeps at most 100 problems and one "… and K more problems" line; the
      // count is the total. Drawing stops at MAX_PROBLEM_ITEMS whatever arrives.
      var count = typeof outcome.total === "number" ? outcome.total : outcome.problems.length;
      var heading = format(T.invalidRequest, { count: count, problems: count === 1 ? T.problem : T.problems });
      setStatus(status, T.refusedStatus, "invalid-request");
      output.appendChild(element("p", { class: "hb-playground__error-title" }, heading));
      var list = element("ul", { class: "hb-playground__problems", "data-playground-problems": "" });
      outcome.problems.slice(0, MAX_PROBLEM_ITEMS).forEach(function (problem) {
        list.appendChild(element("li", {}, problem));
      });
      output.appendChild(list);
    } else if (outcome.kind === "unreadable") {
      // Input too long, too deep, ambiguous (a repeated key) or not JSON (NaN): bad input, not a bug.
      setStatus(status, T.unreadableStatus, "unreadable");
      // The playground's own limits are worded in the page's language; what the reader (the
      // CLI's) says of the input is quoted as its original words.
      var said = outcome.depth
        ? format(T.tooDeep, { levels: outcome.depth })
        : outcome.reason === "too-large"
          ? T.tooLarge
          : format(T.unreadable, { message: outcome.message });
      output.appendChild(element("p", { class: "hb-playground__error-title", "data-playground-unreadable": "" }, said));
    } else if (outcome.kind === "invalid-json") {
      var message = format(T.invalidJson, { line: outcome.line, column: outcome.column, message: outcome.message });
      setStatus(status, T.invalidJsonStatus, "invalid-json");
      output.appendChild(element("p", { class: "hb-playground__error-title", "data-playground-invalid-json": "", "data-line": String(outcome.line), "data-column": String(outcome.column) }, message));
    } else {
      setStatus(status, T.error, "error");
      var errorPre = element("pre", { tabindex: "0", class: "hb-playground__traceback" });
      errorPre.appendChild(element("code", {}, outcome.message));
      output.appendChild(errorPre);
    }
    return Promise.resolve();
  }

  function setUp() {
    requestBlocks().forEach(function (block) {
      if (block.hasAttribute("data-playground")) return;
      block.setAttribute("data-playground", "");
      attach(block);
    });
    // Tests (and anyone scripting the page) wait for this before looking for the controls.
    document.documentElement.setAttribute("data-playground-ready", "");
  }

  // The controls are not needed for the first paint: build them when the browser is idle, so
  // pages with many examples render (and score) as fast as pages without any.
  function setUpWhenIdle() {
    if (typeof window.requestIdleCallback === "function") {
      window.requestIdleCallback(setUp, { timeout: 1000 });
    } else {
      window.setTimeout(setUp, 1);
    }
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    // Material's document observable: fires for the first page and, should instant navigation
    // ever be turned on, for every page swapped in without a reload.
    window.document$.subscribe(setUpWhenIdle);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpWhenIdle);
  } else {
    setUpWhenIdle();
  }
})();
