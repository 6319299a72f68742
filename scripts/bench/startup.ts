// Start-up and memory of the compiled binary, against a baseline measured in the same run: a
// compiled Bun.serve that answers 200 to everything (the floor any Bun server pays), and optionally
// another kith binary (`--against main`: built from that git ref; or the path of a binary).
// Prints: binary size; exec -> first 200 from /health (fresh data directory each time, so the
// zero-config creation and the migrations are included); the CPU the process spent until then (its
// main thread, and all its threads: what a shared, noisy machine cannot inflate the way it inflates
// wall time); idle RSS 500 ms after start; RSS after 2,000 requests; and the ratios to the baseline.
// Runs are interleaved so machine noise hits every binary alike; figures are medians.
// Usage: bun scripts/bench/startup.ts [runs=10] [--against <git ref | binary>]...
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildBinary } from "../build.ts";

const ROOT = resolve(import.meta.dir, "../..");
const args = process.argv.slice(2);
// --against may be given several times (e.g. main and an experimental build): each is measured
const againstAll: string[] = [];
for (let at = args.indexOf("--against"); at >= 0; at = args.indexOf("--against")) againstAll.push(args.splice(at, 2)[1]!);
const RUNS = Number(args[0] ?? 10);
const MEMORY_RUNS = 3;
const work = mkdtempSync(join(tmpdir(), "kith-bench-"));

const kith = await buildBinary("x64", join(work, "kith"));
const baselineSrc = join(work, "baseline.ts");
writeFileSync(baselineSrc, `Bun.serve({ port: Number(process.argv[2]), hostname: "127.0.0.1", fetch: () => new Response('{"status":"ok"}') });\n`);
const baseline = join(work, "baseline");
const b = Bun.spawnSync([process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", baselineSrc, "--outfile", baseline]);
if (b.exitCode !== 0) throw new Error(b.stderr.toString());
const others: Array<{ against: string; file: string }> = [];
for (const [i, against] of againstAll.entries()) others.push({ against, file: await otherBinary(against, `other-${i}`) });

/** A binary given by path, or built from a git ref's tree (git archive, this checkout's node_modules). */
async function otherBinary(ref: string, name: string): Promise<string> {
  if (existsSync(ref)) return resolve(ref);
  const tree = join(work, `${name}-tree`);
  const archive = Bun.spawnSync(["sh", "-c", `mkdir -p '${tree}' && git -C '${ROOT}' archive '${ref}' | tar -x -C '${tree}'`]);
  if (archive.exitCode !== 0) throw new Error(`git archive ${ref}: ${archive.stderr.toString()}`);
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  const built = Bun.spawnSync([process.execPath, "-e", `import { buildBinary } from "./scripts/build.ts"; await buildBinary("x64", ${JSON.stringify(join(work, name))});`], { cwd: tree });
  if (built.exitCode !== 0) throw new Error(`building ${ref}: ${built.stderr.toString()}`);
  return join(work, name, "kith-linux-x64");
}

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

/** CPU time (ms) the process's live threads have run, and its main thread's (/proc schedstat, ns). */
function cpuMs(pid: number): { main: number; all: number } {
  let all = 0;
  let main = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      all += ns;
      if (Number(task) === pid) main = ns;
    } catch {
      // the thread ended meanwhile
    }
  }
  return { main: main / 1e6, all: all / 1e6 };
}

interface Sample {
  startMs: number;
  cpuMain: number;
  cpuAll: number;
  idle: number;
  idleAnon: number;
  loaded: number;
}

async function measure(cmd: (port: number, dir: string) => string[], memory: boolean): Promise<Sample> {
  const port = await freePort();
  const dir = mkdtempSync(join(work, "data-"));
  const t0 = performance.now();
  const proc = Bun.spawn(cmd(port, join(dir, "d")), { stdout: "ignore", stderr: "ignore", env: { PATH: process.env.PATH ?? "" } });
  let startMs = 0;
  let cpu = { main: 0, all: 0 };
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.status === 200) {
        startMs = performance.now() - t0;
        cpu = cpuMs(proc.pid);
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 10_000) throw new Error("server did not start");
    await Bun.sleep(1);
  }
  const sample: Sample = { startMs, cpuMain: cpu.main, cpuAll: cpu.all, idle: 0, idleAnon: 0, loaded: 0 };
  if (memory) {
    await Bun.sleep(500);
    sample.idle = rssMiB(proc.pid);
    sample.idleAnon = anonMiB(proc.pid);
    const paths = ["/health", "/.well-known/ink/agent.json", "/me", "/.well-known/openapi.json"];
    for (let i = 0; i < 2000; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => fetch(`http://127.0.0.1:${port}${paths[(i + j) % paths.length]}`).then((r) => r.arrayBuffer())));
    }
    sample.loaded = rssMiB(proc.pid);
  }
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  return sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kithCmd = (bin: string) => (port: number, dir: string) => [bin, "serve", "--port", String(port), "--data-dir", dir, "--log-level", "silent"];
const baseCmd = (port: number) => [baseline, String(port)];

const subjects = [
  { name: "kith", cmd: kithCmd(kith), file: kith },
  ...others.map((o) => ({ name: `against ${o.against}`, cmd: kithCmd(o.file), file: o.file })),
  { name: "baseline", cmd: baseCmd, file: baseline },
];
const samples = new Map(subjects.map((s) => [s.name, [] as Sample[]]));
for (let i = 0; i < RUNS; i++) {
  // interleaved: machine noise hits every binary alike; memory is read in the first few runs
  for (const s of subjects) samples.get(s.name)!.push(await measure(s.cmd, i < MEMORY_RUNS));
}

const of = (name: string, key: keyof Sample, memory = false) => median(samples.get(name)!.slice(0, memory ? MEMORY_RUNS : undefined).map((x) => x[key]));
const base = (key: keyof Sample, memory = false) => of("baseline", key, memory);
console.log(`startup bench (${RUNS} runs, medians; memory from ${MEMORY_RUNS}; baseline = compiled Bun.serve hello world)`);
for (const s of subjects.filter((x) => x.name !== "baseline")) {
  const row = (label: string, value: number, b: number, unit: string) =>
    console.log(`${s.name.padEnd(14)} ${label.padEnd(30)} ${value.toFixed(1).padStart(7)} ${unit}   baseline ${b.toFixed(1).padStart(7)} ${unit}   ratio ${(value / b).toFixed(2)}x`);
  row("binary size", statSync(s.file).size / 1024 / 1024, statSync(baseline).size / 1024 / 1024, "MiB");
  row("exec -> first 200 /health", of(s.name, "startMs"), base("startMs"), "ms ");
  row("  CPU until then, main thread", of(s.name, "cpuMain"), base("cpuMain"), "ms ");
  row("  CPU until then, all threads", of(s.name, "cpuAll"), base("cpuAll"), "ms ");
  row("idle RSS after start", of(s.name, "idle", true), base("idle", true), "MiB");
  row("  of which anonymous (heap)", of(s.name, "idleAnon", true), base("idleAnon", true), "MiB");
  row("RSS after 2,000 requests", of(s.name, "loaded", true), base("loaded", true), "MiB");
  console.log(`${s.name.padEnd(14)} start times (ms): ${samples.get(s.name)!.map((x) => x.startMs.toFixed(1)).join(" ")}`);
}
const idleMB = of("kith", "idle", true) * 1.048576;
console.log(`targets (issue 18): start < 60 ms (${of("kith", "startMs") < 60 ? "met" : "MISSED"}), idle RSS < 60 MB (${idleMB.toFixed(1)} MB: ${idleMB < 60 ? "met" : "MISSED"})`);
rmSync(work, { recursive: true, force: true });
