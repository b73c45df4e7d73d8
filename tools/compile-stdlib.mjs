// Compile, ahead of time, the standard-library modules the playground's runtime imports when it
// starts, with the very CPython the browser runs (Pyodide's, in Node).
//
//   node tools/compile-stdlib.mjs PYODIDE_DIR PACKAGE_ZIP PACKAGE_DIR MODULES_JSON OUT_ZIP
//
// Pyodide's python_stdlib.zip holds source files only, so a cold start compiles every module it
// imports, under WebAssembly: about 2 s of the first run on a page. This starts Pyodide from
// PYODIDE_DIR and does what the playground's worker does when it starts: it unpacks PACKAGE_ZIP
// (the harnessbook package as the site packs it) into PACKAGE_DIR and imports MODULES_JSON
// (worker.mjs's PACKAGE_DIR and MODULES, read by tools/vendor-pyodide). Then it writes OUT_ZIP: python_stdlib.zip with each
// standard-library module that was read from it replaced by its byte code (X.py -> X.pyc,
// hash-based: the header carries the source's hash). Every other entry is copied unchanged.
// Prints a JSON report: {magic, python, modules}. The same inputs give the same bytes. Called by
// tools/vendor-pyodide; the harnessbook package itself is not compiled (the site packs it from
// src/ at every build).

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, packageZip, packageDir, modulesJson, outZip] = process.argv.slice(2);
if (!outZip) {
  console.error("usage: node tools/compile-stdlib.mjs PYODIDE_DIR PACKAGE_ZIP PACKAGE_DIR MODULES_JSON OUT_ZIP");
  process.exit(2);
}

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: path.resolve(pyodideDir) + path.sep,
  stdout: (line) => console.error(line),
  stderr: (line) => console.error(line),
});
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(packageZip)), "zip", { extractDir: packageDir });
pyodide.globals.set("PACKAGE_DIR", packageDir);
pyodide.FS.mkdirTree("/out");
pyodide.globals.set("MODULES_JSON", modulesJson);

const report = pyodide.runPython(`
import importlib
import importlib.util
import json
import marshal
import sys
import zipfile

STDLIB = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"
PREFIX = STDLIB + "/"
HASH_BASED_UNCHECKED = (0b01).to_bytes(4, "little")  # PEP 552: hash-based, source not checked

sys.path.insert(0, PACKAGE_DIR)
for name in json.loads(MODULES_JSON):
    importlib.import_module(name)
# Frozen modules (os, site, codecs...) carry a __file__ in the archive but run from byte code
# built into the interpreter: they are never read from it.
imported = sorted({
    module.__file__[len(PREFIX):]
    for module in list(sys.modules.values())
    if (getattr(module, "__file__", None) or "").startswith(PREFIX)
    and getattr(module.__spec__, "origin", None) != "frozen"
})
if not all(name.endswith(".py") for name in imported):
    raise SystemExit(f"{STDLIB} already holds byte code: {imported}")
wanted = set(imported)

with zipfile.ZipFile(STDLIB) as source, zipfile.ZipFile("/out/stdlib.zip", "w") as out:
    for info in source.infolist():
        data = source.read(info)
        if info.filename not in wanted:
            out.writestr(info, data, compress_type=info.compress_type, compresslevel=9)
            continue
        code = compile(data, PREFIX + info.filename, "exec", dont_inherit=True)
        header = importlib.util.MAGIC_NUMBER + HASH_BASED_UNCHECKED + importlib.util.source_hash(data)
        entry = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
        entry.external_attr = info.external_attr
        out.writestr(entry, header + marshal.dumps(code), compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)

json.dumps({
    "magic": importlib.util.MAGIC_NUMBER.hex(),
    "python": ".".join(map(str, sys.version_info[:3])),
    "modules": imported,
})
`);
fs.writeFileSync(outZip, pyodide.FS.readFile("/out/stdlib.zip"));
process.stdout.write(report + "\n");
