// Runs the shared cases (cases.ts) under whatever runtime executes this file — bundled for Node 20
// by node.process.test.ts. Prints one line per case ("ok …" / "not ok …") and exits 1 on a failure.
import { cases } from "./cases.ts";

let failed = 0;
for (const [name, run] of cases) {
  try {
    await run();
    console.log(`ok ${name}`);
  } catch (err) {
    failed++;
    console.log(`not ok ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
}
console.log(`runtime ${typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? `node ${process.version}` : "bun"}; ${cases.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
