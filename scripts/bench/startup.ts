// Start-up and memory of the compiled binary, against a baseline measured in the same run: a
// compiled Bun.serve that answers 200 to everything (the floor any Bun server pays).
// Prints: binary size, exec -> first 200 from /health (median of N, fresh data directory each time,
// migrations included), idle RSS after start, RSS after 2,000 requests; and kith/baseline ratios.
// Usage: bun scripts/bench/startup.ts [runs=10]
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../build.ts";

const RUNS = Number(process.argv[2] ?? 10);
const work = mkdtempSync(join(tmpdir(), "kith-bench-"));

const kith = await buildBinary("x64", join(work, "kith"));
const baselineSrc = join(work, "baseline.ts");
writeFileSync(baselineSrc, `Bun.serve({ port: Number(process.argv[2]), hostname: "127.0.0.1", fetch: () => new Response('{"status":"ok"}') });\n`);
const baseline = join(work, "baseline");
const b = Bun.spawnSync([process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", baselineSrc, "--outfile", baseline]);
if (b.exitCode !== 0) throw new Error(b.stderr.toString());

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) / 1024;
}

/** The anonymous part of RSS (heap); the rest is clean, file-backed pages of the runtime image. */
function anonMiB(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  return Number(rollup.match(/Anonymous:\s+(\d+) kB/)![1]) / 1024;
}

async function measure(cmd: (port: number, dir: string) => string[], load: boolean) {
  const port = await freePort();
  const dir = mkdtempSync(join(work, "data-"));
  const t0 = performance.now();
  const proc = Bun.spawn(cmd(port, dir), { stdout: "ignore", stderr: "ignore", env: { PATH: process.env.PATH ?? "" } });
  let startMs = 0;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.status === 200) {
        startMs = performance.now() - t0;
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 10_000) throw new Error("server did not start");
    await Bun.sleep(1);
  }
  let idle = 0;
  let idleAnon = 0;
  let loaded = 0;
  if (load) {
    await Bun.sleep(500);
    idle = rssMiB(proc.pid);
    idleAnon = anonMiB(proc.pid);
    const paths = ["/health", "/.well-known/ink/agent.json", "/me", "/.well-known/openapi.json"];
    for (let i = 0; i < 2000; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => fetch(`http://127.0.0.1:${port}${paths[(i + j) % paths.length]}`).then((r) => r.arrayBuffer())));
    }
    loaded = rssMiB(proc.pid);
  }
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  return { startMs, idle, idleAnon, loaded };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kithCmd = (port: number, dir: string) => [kith, "serve", "--port", String(port), "--data-dir", dir, "--log-level", "silent"];
const baseCmd = (port: number) => [baseline, String(port)];

const kStarts: number[] = [];
const bStarts: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // interleave so machine noise hits both alike
  kStarts.push((await measure(kithCmd, false)).startMs);
  bStarts.push((await measure(baseCmd, false)).startMs);
}
const kMem = await measure(kithCmd, true);
const bMem = await measure(baseCmd, true);

const size = statSync(kith).size / 1024 / 1024;
const bSize = statSync(baseline).size / 1024 / 1024;
const row = (name: string, k: number, base: number, unit: string) =>
  console.log(`${name.padEnd(34)} kith ${k.toFixed(1).padStart(7)} ${unit}   baseline ${base.toFixed(1).padStart(7)} ${unit}   ratio ${(k / base).toFixed(2)}x`);
console.log(`startup bench (${RUNS} runs, medians; baseline = compiled Bun.serve hello world)`);
row("binary size", size, bSize, "MiB");
row("exec -> first 200 /health", median(kStarts), median(bStarts), "ms ");
row("idle RSS after start", kMem.idle, bMem.idle, "MiB");
row("  of which anonymous (heap)", kMem.idleAnon, bMem.idleAnon, "MiB");
row("RSS after 2,000 requests", kMem.loaded, bMem.loaded, "MiB");
console.log(`kith start times (ms): ${kStarts.map((x) => x.toFixed(1)).join(" ")}`);
console.log(`targets: start < 60 ms (${median(kStarts) < 60 ? "met" : "MISSED"}), idle RSS < 55 MB (${(kMem.idle * 1.048576).toFixed(1)} MB: ${kMem.idle * 1.048576 < 55 ? "met" : "MISSED"})`);
rmSync(work, { recursive: true, force: true });
