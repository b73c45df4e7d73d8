// Lighthouse's own command line (the lighthouse package pinned in package.json), with the same
// arguments, ended as soon as it has finished. tests/browser/test_lighthouse.py runs this.
//
// The command line returns once the reports are saved and Chrome is closed, but Node then
// waits for timers the run left behind (timeouts of in-page fetches that already answered, up
// to 5 s) before the process exits: 2 to 5 s of every run, with nothing left to do. Lighthouse
// itself exits with process.exit() on every error; this does the same on success.
import { begin } from "lighthouse/cli/bin.js";

await begin();
process.exit(process.exitCode ?? 0);
