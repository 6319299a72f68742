// Records the profile scripts/build.ts lays the binary's bytecode out by (Bun's profile-guided
// bytecode layout, `--bytecode-order`): which functions `kith serve` uses from exec to its first
// answered /health with a new data directory. A restart of an existing directory uses the same
// functions but 55 of ~19,700 (measured), so one profile serves both. Profiles match functions by a
// hash of their syntax: an old profile still applies to changed code (changed functions are placed
// after the recorded ones); record again when start-up has changed a lot. Writes
// scripts/kith-serve.order.gz (gzip: the profile is a list of hashes).
// Usage: bun scripts/bytecode-order.ts
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BYTECODE_ORDER_FILE, buildBinary } from "./build.ts";

const work = mkdtempSync(join(tmpdir(), "kith-order-record-"));
try {
  const kith = await buildBinary("x64", join(work, "bin"));
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  // %p: one file per process; its Workers are recorded into it too. Bun writes it on exit.
  const proc = Bun.spawn([kith, "serve", "--port", String(port), "--data-dir", join(work, "data"), "--log-level", "silent"], {
    env: { PATH: process.env.PATH ?? "", BUN_BYTECODE_ORDER_OUT: join(work, "kith-%p.order") },
    stdout: "ignore",
    stderr: "ignore",
  });
  for (const started = Date.now(); ; await Bun.sleep(5)) {
    if (Date.now() - started > 20_000) throw new Error("kith serve did not answer /health");
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)) break;
  }
  proc.kill("SIGTERM");
  if ((await proc.exited) !== 0) throw new Error("kith serve did not stop cleanly");
  const written = readdirSync(work).filter((f) => f.endsWith(".order"));
  if (written.length !== 1) throw new Error(`expected one profile, found ${written.join(", ") || "none"}`);
  const profile = readFileSync(join(work, written[0]!));
  writeFileSync(BYTECODE_ORDER_FILE, Bun.gzipSync(profile, { level: 9 }));
  console.log(`${BYTECODE_ORDER_FILE}: ${profile.toString("utf8").trim().split("\n").length} entries`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
