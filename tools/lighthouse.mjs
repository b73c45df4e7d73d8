// Lighthouse's own command line (the lighthouse package pinned in package.json), with the same
// arguments, ended as soon as it has finished. tests/browser/test_lighthouse.py runs this.
//
// The command line returns once the reports are saved and Chrome is closed, but Node then
// waits for timers the run left behind (timeouts of in-page fetches that already answered, up
// to 5 s) before the process exits: 2 to 5 s of every run, with nothing left to do. Lighthouse
// itself exits with process.exit() on every error; this does the same on success.
//
//   node tools/lighthouse.mjs URL [LIGHTHOUSE ARGUMENTS...]   one audit, as `lighthouse` runs it
//   node tools/lighthouse.mjs --serve                         one audit per line of standard input
//
// With --serve, each line of standard input is a JSON array of the arguments of one audit. The
// audit runs exactly as the command line runs it (its own flags, its own Chrome), and then the
// line {"lighthouse-exit": CODE} is written to standard output. Loading Lighthouse takes about
// 1.3 s of CPU, which the audits after the first do not pay again. An error ends the process, as
// it ends the command line (exit code and message on standard error); the caller starts another.
import readline from "node:readline";
import { begin } from "lighthouse/cli/bin.js";

if (process.argv[2] !== "--serve") {
  await begin();
  process.exit(process.exitCode ?? 0);
}

const [node, script] = process.argv;
for await (const line of readline.createInterface({ input: process.stdin })) {
  process.argv = [node, script, ...JSON.parse(line)]; // what the command line's flags are read from
  process.exitCode = undefined;
  await begin();
  process.stdout.write(JSON.stringify({ "lighthouse-exit": process.exitCode ?? 0 }) + "\n");
}
process.exit(0);
