// The playground's Web Worker: Pyodide and the harnessbook package, off the page's main thread.
//
// Started by playground.js the first time a reader shows the intent to run an example (a mouse
// pointer over a Run control, focus on it, or a click), never before.
// Messages in:  {type: "init", indexURL, packageURL}   then   {type: "run", id, text, lang}
// Messages out: {type: "progress", stage}
//               {type: "ready", pyodide, python, start: "cold" | "snapshot", sourceModules: [...]}
//               {type: "init-error", reason: "wasm-mime" | "wasm-csp" | "csp" | "module" | "network" | "http" | "load",
//                message, contentType?, file?, status?, directive?}
//               {type: "outcome", id, outcome: {...}}   (see RUNNER below)
// A run names the edition's language (lang: "zh" | "en") for the figure's words.

// Run in Python, so that the browser reads the request exactly as the command line does
// (harnessbook.cli._parse_text: repeated keys, NaN, deep nesting and over-long integers are
// refused as unreadable input) and formats the result as the CLI and the pages do. What is
// sent back is bounded: at most 101 problem lines (the builder's own bound), the first
// RESULT_LINES lines of the result and at most RESULT_CHARS characters of them (one candidate's
// content can be megabytes on one line), with what was left out counted, and a decision table
// of TABLE_ROWS rows whose ids are cut to ID_CHARS characters.
const RUNNER = `
import json
import traceback

from harnessbook import InvalidRequestError, build_context_packet
from harnessbook.figure import render_svg, render_table
from harnessbook.cli import _Unreadable, _escape_in_output, _parse_text

RESULT_LINES = 1000
RESULT_CHARS = 200_000
TABLE_ROWS = 100
ID_CHARS = 1000


def _cut_id(record):
    ident = record["id"]
    return record if len(ident) <= ID_CHARS else dict(record, id=ident[:ID_CHARS] + "…")


def _harnessbook_playground_run(text, lang):
    try:
        request = _parse_text(text)
    except _Unreadable as error:
        if error.position is not None:
            message, line, column = error.position
            outcome = {"kind": "invalid-json", "message": message, "line": line, "column": column}
        else:
            outcome = {"kind": "unreadable", "message": "input" + error.tail}
    except MemoryError:
        outcome = {"kind": "unreadable", "reason": "too-large", "message": "input is too large to read here"}
    else:
        try:
            result = build_context_packet(request)
        except InvalidRequestError as error:
            outcome = {"kind": "invalid-request", "problems": list(error.problems), "total": error.total}
        except MemoryError:
            outcome = {"kind": "unreadable", "reason": "too-large", "message": "input is too large to build here"}
        except Exception:
            outcome = {"kind": "error", "message": traceback.format_exc()[-4000:]}
        else:
            lines = json.dumps(result, ensure_ascii=False, indent=2).split("\\n", RESULT_LINES)
            more = 0
            if len(lines) > RESULT_LINES:
                more = lines.pop().count("\\n") + 1
            # As the command line prints it: a bidi override in an id cannot reorder its line.
            text = _escape_in_output("\\n".join(lines))
            more_chars = max(0, len(text) - RESULT_CHARS)
            def drawn(render, value):
                # A renderer that fails must not take the result with it: the page says the
                # figure is missing (a bug) and shows the result below.
                try:
                    return render(value, lang)
                except Exception:
                    return None

            outcome = {
                "kind": "result",
                "state": result["state"],
                "phase": result["phase"],
                "text": text[:RESULT_CHARS],
                "moreLines": more,
                "moreChars": more_chars,
                # The same figure and decision table as on the book's pages (hooks/figures.py).
                "svg": drawn(render_svg, result),
                # The table is drawn on the page's main thread: its first TABLE_ROWS rows only.
                "table": drawn(render_table, dict(result, evidence=[_cut_id(e) for e in result["evidence"][:TABLE_ROWS]])),
                "moreRows": max(0, len(result["evidence"]) - TABLE_ROWS),
                "tableRows": TABLE_ROWS,
            }
    return json.dumps(outcome, ensure_ascii=False)


_harnessbook_playground_run
`;

// The command line's limit (harnessbook.cli.MAX_DEPTH, counted the same way): deeper, the text
// is refused before Python sees it, since under WebAssembly a deep parse could exhaust the
// JavaScript stack (a RangeError) instead of raising RecursionError. Python would refuse the
// same texts (tests/test_playground_assets.py keeps the two numbers and counts the same).
const MAX_DEPTH = 500;

function nestingDepth(text) {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

const EXPECTED_WASM_TYPE = "application/wasm";

// Set once the page has been told why the runtime cannot start; the page then ends this worker.
let failureReported = false;

function reportFailure(reason, message, extra) {
  if (failureReported) return; // the first reason is the one the page words
  failureReported = true;
  self.postMessage({ type: "init-error", reason, message, ...extra });
}

// A runtime file that did not arrive: the connection failed ("network"), the server answered
// with an error status ("http", with the status), or the site's Content Security Policy refused
// the request ("csp", with the directive). All are worded by the page, with the file.
class FetchFailure extends Error {
  constructor(reason, file, message, extra) {
    super(message);
    this.reason = reason;
    this.extra = { file, ...extra };
  }
}

// A policy that refuses this worker's requests (a host's connect-src without 'self', or a
// script-src that refuses pyodide.mjs): the request fails as a failed connection does, and only
// the violation, fired here in the worker, says why. The page words it as the policy's fault,
// with the directive, instead of asking the reader to check the connection.
// Each refusal is kept with the path it refused, so that a file is blamed on its own refusal
// only, not on another file's.
const refusals = [];
self.addEventListener("securitypolicyviolation", (event) => {
  const uri = String(event.blockedURI);
  if (/^https?:/.test(uri)) {
    // script-src-elem and the like are set by their family's directive as often as by themselves.
    const directive = String(event.effectiveDirective || event.violatedDirective || "").split(" ")[0].replace(/-(elem|attr)$/, "");
    refusals.push({ path: new URL(uri).pathname, directive });
  }
});

// The violation a refused request for ``file`` caused, if any: its event may come a task after
// the failure.
async function refusal(file, error) {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const name = "/" + file.split("?")[0].split("/").pop();
  const found = refusals.find((refused) => refused.path.endsWith(name));
  return found === undefined ? null : new FetchFailure("csp", file, `${file}: refused by ${found.directive} (${describe(error)})`, { directive: found.directive });
}

async function fetched(source, file) {
  let response;
  try {
    response = await source;
  } catch (error) {
    throw (await refusal(file, error)) || new FetchFailure("network", file, `${file}: ${describe(error)}`);
  }
  if (!response.ok) {
    throw new FetchFailure("http", file, `${response.url}: HTTP ${response.status}`, { status: response.status });
  }
  return response;
}

function describe(error) {
  return String(error && error.message ? error.message : error);
}

// Pyodide compiles pyodide.asm.wasm with WebAssembly.instantiateStreaming. Look at the response
// first: with any other Content-Type than application/wasm the browser refuses to compile it,
// and Pyodide's loader (its instantiateWasm, pyodide.mjs) only logs that refusal with
// console.warn and tries nothing else: the start would wait for ever, until the page's time
// limit (five minutes). Stop at once and say what the host must fix.
if (typeof WebAssembly.instantiateStreaming === "function") {
  const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    // Checked here, not left to Pyodide: its loader only logs a failed wasm request too.
    let response;
    try {
      response = await fetched(source, "pyodide.asm.wasm");
    } catch (error) {
      reportFailure(error.reason, error.message, error.extra);
      throw error;
    }
    const type = (response.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
    if (type !== EXPECTED_WASM_TYPE) {
      const contentType = type || "(none)";
      reportFailure("wasm-mime", `${response.url} was served as ${contentType}, not ${EXPECTED_WASM_TYPE}`, {
        contentType: type, // "" when the server sent none: the page words that in its language
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
      // Chromium names the policy in full; Firefox says "blocked by CSP".
      reportFailure(/Content[- ]Security[- ]Policy|\bCSP\b|wasm-unsafe-eval/i.test(message) ? "wasm-csp" : "load", message);
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

// The started runtime is kept in the browser's Cache Storage as a memory snapshot (Pyodide's
// makeMemorySnapshot, stored sparse: about 12 MB, see packSnapshot), so that the next page's
// playground starts from it in about a second instead of starting CPython again. One snapshot
// is kept, named by the runtime's folder (its version) and the package's SHA-256: a new build
// replaces it. Where Cache Storage is missing (a page served over plain http from another
// host), or a stored snapshot does not restore, the runtime starts as before.
const SNAPSHOT_CACHE = "harnessbook-playground";
const PACKAGE_DIR = "/home/pyodide/harnessbook-src";
// What a start imports before any run. tools/vendor-pyodide reads this list: the standard-library
// modules these import are compiled ahead of time into STDLIB (see below).
const MODULES = ["harnessbook.cli", "harnessbook.figure", "json", "traceback"];
const IMPORTS = `
import sys
sys.path.insert(0, ${JSON.stringify(PACKAGE_DIR)})
import ${MODULES.join(", ")}
`;
// Pyodide's own python_stdlib.zip holds source files only, and compiling the modules a start
// imports takes about 2 s under WebAssembly. STDLIB is the same archive with those modules as
// byte code, made by the same CPython (tools/compile-stdlib.mjs; hooks/playground.py checks
// each one against its source). SOURCE_MODULES lists the standard-library modules a started
// runtime still imported from source: none, unless MODULES changed since the archive was made.
// The query names the archive's content (the start of vendor.json's compiled.sha256;
// hooks/playground.py checks it, tools/vendor-pyodide writes it). Hosts cache the runtime's
// folder for good (deploy/headers.py: its name changes with Pyodide's version), and this one
// file is made here and can change within a version: a new archive has a new address.
const STDLIB = "python_stdlib.compiled.zip?sha256=4bd82e32553dcc92";
const SOURCE_MODULES = `
import sys
_stdlib = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/"
sorted({m.__file__[len(_stdlib):] for m in list(sys.modules.values())
        if (getattr(m, "__file__", None) or "").startswith(_stdlib) and m.__file__.endswith(".py")
        and getattr(m.__spec__, "origin", None) != "frozen"})
`;

// A snapshot is a memory image of a runtime started on one package and one standard library
// (zipimport keeps the archive's directory in memory) by one start-up code (IMPORTS: the package's
// folder on sys.path, the modules imported): its name covers all three.
async function snapshotKey(indexURL, packageBytes) {
  try {
    const stdlib = new TextEncoder().encode(STDLIB + "\0" + IMPORTS);
    const named = new Uint8Array(packageBytes.byteLength + stdlib.byteLength);
    named.set(new Uint8Array(packageBytes), 0);
    named.set(stdlib, packageBytes.byteLength);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", named));
    const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    return new URL(`harnessbook-${hex}.snapshot`, indexURL).href;
  } catch {
    return null; // no digest, no name: start without a snapshot
  }
}

async function openSnapshots() {
  try {
    return self.caches ? await self.caches.open(SNAPSHOT_CACHE) : null;
  } catch {
    return null; // storage refused (private mode, quota): start without a snapshot
  }
}

// A memory snapshot is about 31 MB, three quarters of it zeros. It is stored sparse: a header,
// then the index and the bytes of each SNAPSHOT_PAGE-sized page that is not all zeros (about
// 12 MB). Packing takes milliseconds; gzip took about a second on a two-core machine, and a
// reader who left the page within that second left no snapshot for the next one.
//   header (little-endian uint32): SNAPSHOT_MAGIC, SNAPSHOT_VERSION, byte length, page size,
//                                   count of pages kept (N)
//   then N uint32 page indexes, increasing; then the N pages (the last one may be shorter).
const SNAPSHOT_MAGIC = 0x70736268; // "hbsp"
const SNAPSHOT_VERSION = 1;
const SNAPSHOT_PAGE = 4096;
const SNAPSHOT_HEADER = 5;

function packSnapshot(memory) {
  const bytes = memory.byteOffset % 4 === 0 ? memory : memory.slice();
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  const wordsPerPage = SNAPSHOT_PAGE / 4;
  const kept = [];
  for (let page = 0; page * SNAPSHOT_PAGE < bytes.length; page++) {
    const start = page * SNAPSHOT_PAGE;
    const end = Math.min(start + SNAPSHOT_PAGE, bytes.length);
    let used = false;
    for (let w = page * wordsPerPage, last = end >>> 2; w < last && !used; w++) used = words[w] !== 0;
    for (let b = end & ~3; b < end && !used; b++) used = bytes[b] !== 0; // an unaligned tail
    if (used) kept.push(page);
  }
  const head = new Uint32Array([SNAPSHOT_MAGIC, SNAPSHOT_VERSION, bytes.length, SNAPSHOT_PAGE, kept.length, ...kept]);
  const parts = [head];
  for (const page of kept) parts.push(bytes.subarray(page * SNAPSHOT_PAGE, (page + 1) * SNAPSHOT_PAGE));
  return new Blob(parts);
}

// The memory packSnapshot packed, or null when ``buffer`` is not such a snapshot.
function unpackSnapshot(buffer) {
  if (buffer.byteLength < SNAPSHOT_HEADER * 4) return null;
  const view = new DataView(buffer);
  const word = (i) => view.getUint32(i * 4, true);
  const [magic, version, length, pageSize, count] = [0, 1, 2, 3, 4].map(word);
  const pages = Math.ceil(length / SNAPSHOT_PAGE);
  if (magic !== SNAPSHOT_MAGIC || version !== SNAPSHOT_VERSION || pageSize !== SNAPSHOT_PAGE || count > pages) {
    return null;
  }
  const dataStart = (SNAPSHOT_HEADER + count) * 4;
  const source = new Uint8Array(buffer);
  const memory = new Uint8Array(length);
  let offset = dataStart;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const page = word(SNAPSHOT_HEADER + i);
    if (page <= previous || page >= pages) return null;
    const size = Math.min(SNAPSHOT_PAGE, length - page * SNAPSHOT_PAGE);
    if (offset + size > buffer.byteLength) return null;
    memory.set(source.subarray(offset, offset + size), page * SNAPSHOT_PAGE);
    offset += size;
    previous = page;
  }
  return offset === buffer.byteLength ? memory : null;
}

async function storedSnapshot(cache, key) {
  try {
    const response = cache && (await cache.match(key));
    return response ? unpackSnapshot(await response.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

async function storeSnapshot(cache, key, snapshot) {
  try {
    // One snapshot per site: the older ones of this site's playground folder (any runtime
    // version) go; another site on the same origin (a GitHub Pages project beside this one)
    // keeps its own.
    const site = new URL("..", key).href;
    for (const old of await cache.keys()) {
      if (old.url !== key && old.url.startsWith(site)) await cache.delete(old);
    }
    await cache.put(key, new Response(packSnapshot(snapshot), { headers: { "Content-Type": "application/octet-stream" } }));
  } catch {
    // Not stored (quota, storage turned off): the next page starts the runtime as this one did.
  }
}

// Start Pyodide, from a stored snapshot or cold, and make the package's runner. A cold start
// with a snapshot name takes the snapshot after the imports and before any run, so that it
// holds the started runtime and nothing of a request.
async function start(loadPyodide, options, packageBytes, { snapshot, snapshotName }) {
  const pyodide = await loadPyodide(
    snapshot ? { ...options, _loadSnapshot: snapshot } : { ...options, _makeSnapshot: Boolean(snapshotName) },
  );
  self.postMessage({ type: "progress", stage: "package" });
  pyodide.unpackArchive(packageBytes, "zip", { extractDir: PACKAGE_DIR });
  let made = null;
  if (!snapshot) {
    pyodide.runPython(IMPORTS);
    made = snapshotName ? pyodide.makeMemorySnapshot() : null;
  }
  const runner = pyodide.runPython(RUNNER);
  const python = pyodide.runPython("import sys; '.'.join(map(str, sys.version_info[:3]))");
  const sourceModules = pyodide.runPython(SOURCE_MODULES).toJs();
  return { pyodide, runner, python, made, sourceModules };
}

async function init(indexURL, packageURL) {
  self.postMessage({ type: "progress", stage: "runtime" });
  // The package (about 50 KB) is fetched while Pyodide's module loads.
  const packageBytes = fetched(fetch(packageURL), "harnessbook.zip").then((response) => response.arrayBuffer());
  packageBytes.catch(() => {});
  let loadPyodide;
  const moduleURL = new URL("pyodide.mjs", indexURL).href;
  try {
    ({ loadPyodide } = await import(moduleURL));
  } catch (error) {
    // A failed import says nothing of why: ask for the file again. A refused import, a missing
    // file (a page left open across a deploy that upgraded Pyodide asks for the old runtime's
    // folder) or a failed connection is said as such; a file that arrives is one the server
    // does not send as JavaScript (or a connection that failed for the import only).
    let failure = await refusal("pyodide.mjs", error);
    if (failure === null) {
      try {
        await fetched(fetch(moduleURL), "pyodide.mjs");
      } catch (probe) {
        if (probe instanceof FetchFailure) failure = probe;
      }
    }
    if (failure !== null) reportFailure(failure.reason, failure.message, failure.extra);
    else reportFailure("module", describe(error));
    return;
  }
  const options = {
    indexURL,
    stdLibURL: new URL(STDLIB, indexURL).href,
    // Packages would come from here too; the playground loads none, and this keeps even a
    // stray loadPackage call on this host instead of Pyodide's default CDN.
    packageBaseUrl: indexURL,
    fullStdLib: false,
    stdout: () => {},
    stderr: () => {},
  };
  const bytes = await packageBytes;
  const cache = await openSnapshots();
  const snapshotName = cache && (await snapshotKey(indexURL, bytes));
  const snapshot = snapshotName && (await storedSnapshot(cache, snapshotName));
  let started = null;
  if (snapshot) {
    try {
      started = await start(loadPyodide, options, bytes, { snapshot });
    } catch {
      if (failureReported) return;
      // A snapshot that does not restore, or restores a runtime that does not work, is not
      // tried again: start cold, which stores a new one.
      await cache.delete(snapshotName).catch(() => {});
    }
  }
  const from = started ? "snapshot" : "cold";
  started ??= await start(loadPyodide, options, bytes, { snapshotName });
  run = started.runner;
  self.postMessage({
    type: "ready",
    pyodide: started.pyodide.version,
    python: started.python,
    start: from,
    sourceModules: started.sourceModules,
  });
  if (started.made) {
    await storeSnapshot(cache, snapshotName, started.made);
  }
}

self.addEventListener("message", async (event) => {
  const message = event.data;
  if (message.type === "init") {
    try {
      await init(message.indexURL, message.packageURL);
    } catch (error) {
      let failure = error;
      if (!(error instanceof FetchFailure) && !failureReported) {
        // Pyodide fetches its lock file, its JavaScript module (pyodide.asm.mjs) and the
        // standard library itself, and when one fails it says little or nothing of the file
        // ("Program terminated with exit(1)", a failed import, or a 404's HTML page read as
        // JSON: "Unexpected token '<'"): ask for each again to say which failed, and how.
        const files = [["pyodide-lock.json", "pyodide-lock.json"], ["pyodide.asm.mjs", "pyodide.asm.mjs"], ["python_stdlib.compiled.zip", STDLIB]];
        for (const [file, path] of files) {
          try {
            await fetched(fetch(new URL(path, message.indexURL).href), file);
          } catch (probe) {
            if (probe instanceof FetchFailure) {
              failure = probe;
              break;
            }
          }
        }
      }
      if (failure instanceof FetchFailure) reportFailure(failure.reason, failure.message, failure.extra);
      else reportFailure("load", describe(failure));
    }
  } else if (message.type === "run") {
    let outcome;
    if (nestingDepth(message.text) > MAX_DEPTH) {
      // Worded by the page in the reader's language (its tooDeep label), not here.
      outcome = { kind: "unreadable", depth: MAX_DEPTH, message: `input is nested more than ${MAX_DEPTH} levels deep` };
    } else {
      try {
        outcome = JSON.parse(run(message.text, message.lang === "en" ? "en" : "zh"));
      } catch (error) {
        // Not a Python exception the runner caught: the JavaScript stack or memory ran out
        // (RangeError), or Pyodide itself failed. The input was too much for the page; the
        // runtime may be unusable now, so the page starts a fresh one for the next run.
        const text = describe(error);
        const exhausted = error instanceof RangeError || /RangeError|Maximum call stack|out of memory|RecursionError|MemoryError/i.test(text);
        outcome = exhausted
          ? { kind: "unreadable", reason: "too-large", message: "input is too large or too deeply nested to read here", restart: true }
          : { kind: "error", message: text.slice(-4000), restart: true };
      }
    }
    self.postMessage({ type: "outcome", id: message.id, outcome });
  }
});
