// The playground's Web Worker: Pyodide and the harnessbook package, off the page's main thread.
//
// Started by playground.js the first time a reader asks to run an example, never before.
// Messages in:  {type: "init", indexURL, packageURL}   then   {type: "run", id, text, lang}
// Messages out: {type: "progress", stage}  {type: "ready", pyodide, python}
//               {type: "init-error", reason: "wasm-mime" | "wasm-csp" | "module" | "load", message, contentType?}
//               {type: "outcome", id, outcome: {...}}   (see RUNNER below)
// A run names the edition's language (lang: "zh" | "en") for the figure's words.

// Run in Python, so that the browser parses the request exactly as CPython's json.loads does
// (duplicate keys, big integers, NaN...) and formats the result as the CLI and the pages do.
const RUNNER = `
import json
import traceback

from harnessbook import InvalidRequestError, build_context_packet
from harnessbook.figure import render_svg, render_table


def _harnessbook_playground_run(text, lang):
    try:
        request = json.loads(text)
    except json.JSONDecodeError as error:
        outcome = {"kind": "invalid-json", "message": error.msg, "line": error.lineno, "column": error.colno}
    else:
        try:
            result = build_context_packet(request)
        except InvalidRequestError as error:
            outcome = {"kind": "invalid-request", "problems": list(error.problems)}
        except Exception:
            outcome = {"kind": "error", "message": traceback.format_exc()}
        else:
            outcome = {
                "kind": "result",
                "state": result["state"],
                "phase": result["phase"],
                "text": json.dumps(result, ensure_ascii=False, indent=2),
                # The same figure and decision table as on the book's pages (hooks/figures.py).
                "svg": render_svg(result, lang),
                "table": render_table(result, lang),
            }
    return json.dumps(outcome, ensure_ascii=False)


_harnessbook_playground_run
`;

const EXPECTED_WASM_TYPE = "application/wasm";

// Set once the page has been told why the runtime cannot start; the page then ends this worker.
let failureReported = false;

function reportFailure(reason, message, extra) {
  failureReported = true;
  self.postMessage({ type: "init-error", reason, message, ...extra });
}

function describe(error) {
  return String(error && error.message ? error.message : error);
}

// Pyodide compiles pyodide.asm.wasm with WebAssembly.instantiateStreaming. Look at the response
// first: with any other Content-Type the browser refuses to stream it, and Emscripten would
// quietly download the 9 MB again as a plain buffer. Stop and say what the host must fix.
if (typeof WebAssembly.instantiateStreaming === "function") {
  const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    const type = (response.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
    if (type !== EXPECTED_WASM_TYPE) {
      const contentType = type || "(none)";
      reportFailure("wasm-mime", `${response.url} was served as ${contentType}, not ${EXPECTED_WASM_TYPE}`, {
        contentType,
        url: response.url,
      });
      throw new TypeError(`wasm served as ${contentType}`);
    }
    try {
      return await instantiateStreaming(response, imports);
    } catch (error) {
      // Compiling the same bytes again from a buffer cannot succeed either (a Content Security
      // Policy without 'wasm-unsafe-eval', a damaged file): report it instead of hanging.
      const message = describe(error);
      reportFailure(/Content[- ]Security[- ]Policy/i.test(message) ? "wasm-csp" : "load", message);
      throw error;
    }
  };
  const instantiate = WebAssembly.instantiate.bind(WebAssembly);
  WebAssembly.instantiate = (...args) => {
    if (failureReported) {
      return new Promise(() => {}); // no fallback: the page was told already
    }
    return instantiate(...args);
  };
}

let run = null;

async function init(indexURL, packageURL) {
  self.postMessage({ type: "progress", stage: "runtime" });
  let loadPyodide;
  try {
    ({ loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href));
  } catch (error) {
    // Typically a server that does not send .mjs as JavaScript (or a missing file).
    reportFailure("module", describe(error));
    return;
  }
  const pyodide = await loadPyodide({
    indexURL,
    // Packages would come from here too; the playground loads none, and this keeps even a
    // stray loadPackage call on this host instead of Pyodide's default CDN.
    packageBaseUrl: indexURL,
    fullStdLib: false,
    stdout: () => {},
    stderr: () => {},
  });
  self.postMessage({ type: "progress", stage: "package" });
  const response = await fetch(packageURL);
  if (!response.ok) {
    throw new Error(`${packageURL}: HTTP ${response.status}`);
  }
  const target = "/home/pyodide/harnessbook-src";
  pyodide.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: target });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(target)})`);
  run = pyodide.runPython(RUNNER);
  const python = pyodide.runPython("import sys; '.'.join(map(str, sys.version_info[:3]))");
  self.postMessage({ type: "ready", pyodide: pyodide.version, python });
}

self.addEventListener("message", async (event) => {
  const message = event.data;
  if (message.type === "init") {
    try {
      await init(message.indexURL, message.packageURL);
    } catch (error) {
      if (!failureReported) {
        reportFailure("load", describe(error));
      }
    }
  } else if (message.type === "run") {
    let outcome;
    try {
      outcome = JSON.parse(run(message.text, message.lang === "en" ? "en" : "zh"));
    } catch (error) {
      outcome = { kind: "error", message: describe(error) };
    }
    self.postMessage({ type: "outcome", id: message.id, outcome });
  }
});
