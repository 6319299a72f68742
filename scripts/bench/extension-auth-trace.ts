// A timeline of the batched extension stage (BENCH_TRACE=1 in extension-auth.ts; issue 14): when
// each core works and when it waits. Three sources, all in ms since the epoch:
// - the serving thread: a 1 ms timer reads its CPU clock; under load it fires once per turn of the
//   event loop, so each sample is one turn's busy fraction (CPU ÷ wall since the last one);
// - each worker: the batcher's onPart (posted, ran from–to on the worker, answered; batch sizes);
// - the group commit: the write queue's run wrapped (when a job ran, inside its COMMIT, and when
//   its promise settled, after the fsync that followed).
// summarize() turns them into where the idle time of the two cores went.
import type { PartTrace } from "../../src/adapters/crypto-batch.ts";
import type { WriteQueue } from "../../src/db/write-queue.ts";

const nowMs = () => performance.timeOrigin + performance.now();
const threadMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

interface Turn {
  from: number;
  to: number;
  busy: number;
}
interface Job {
  commit: number;
  ranAt: number;
  settledAt: number;
}

export function createTrace() {
  let on = false;
  const turns: Turn[] = [];
  const parts: PartTrace[] = [];
  const jobs: Job[] = [];
  const windows: Array<[number, number]> = [];
  let last = { at: nowMs(), cpu: threadMs() };
  const sampler = setInterval(() => {
    const at = nowMs();
    const cpu = threadMs();
    if (on) turns.push({ from: last.at, to: at, busy: Math.min(1, (cpu - last.cpu) / Math.max(1e-3, at - last.at)) });
    last = { at, cpu };
  }, 1);
  return {
    onPart: (p: PartTrace) => void (on && parts.push(p)),
    /** Wraps the node's write queue (the same object every ctx of the node holds). */
    watch(writes: WriteQueue) {
      const run = writes.run.bind(writes);
      (writes as { run: WriteQueue["run"] }).run = (fn) => {
        const job: Job = { commit: -1, ranAt: 0, settledAt: 0 };
        const settled = () => {
          job.settledAt = nowMs();
          if (on) jobs.push(job);
        };
        const p = run((tx) => {
          job.commit = writes.commits;
          job.ranAt = nowMs();
          return fn(tx);
        });
        p.then(settled, settled);
        return p;
      };
    },
    start() {
      on = true;
      last = { at: nowMs(), cpu: threadMs() };
      windows.push([last.at, Infinity]);
    },
    stop() {
      const at = nowMs();
      const cpu = threadMs();
      turns.push({ from: last.at, to: at, busy: Math.min(1, (cpu - last.cpu) / Math.max(1e-3, at - last.at)) });
      on = false;
      windows[windows.length - 1]![1] = at;
    },
    close: () => clearInterval(sampler),
    summarize: (workers: number) => summarize(windows, turns, parts, jobs, workers),
  };
}

const q = (xs: number[], f: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * f))]!);
const f1 = (x: number) => x.toFixed(1);

/**
 * On a 0.05 ms grid over the traced turns: how many of the two cores worked (the serving thread's
 * busy fraction for its turn + the workers running a batch, at most 2), and for the time neither
 * the serving thread nor any worker worked, whether an fsync of the group commit was being waited on.
 */
function summarize(windows: Array<[number, number]>, turns: Turn[], parts: PartTrace[], jobs: Job[], workers: number): string {
  if (turns.length === 0) return "trace: nothing recorded";
  const t0 = turns[0]!.from;
  const t1 = turns[turns.length - 1]!.to;
  const step = 0.05;
  const cells = Math.ceil((t1 - t0) / step);
  const serving = new Float32Array(cells);
  const working = new Uint8Array(cells);
  const fsyncWait = new Uint8Array(cells);
  const cell = (t: number) => Math.max(0, Math.min(cells, Math.round((t - t0) / step)));
  const traced = new Uint8Array(cells); // between the timed parts (requests being made) nothing counts
  for (const [from, to] of windows) traced.fill(1, cell(from), cell(to));
  for (const t of turns) serving.fill(t.busy, cell(t.from), cell(t.to));
  for (const p of parts) for (let i = cell(p.startedAt); i < cell(p.endedAt); i++) working[i]!++;
  // a commit's fsync wait: from its last job's run (COMMIT follows at once) to its jobs' answers
  const commits = new Map<number, { ranAt: number; settledAt: number; jobs: number }>();
  for (const j of jobs) {
    const c = commits.get(j.commit) ?? { ranAt: 0, settledAt: Infinity, jobs: 0 };
    c.ranAt = Math.max(c.ranAt, j.ranAt);
    c.settledAt = Math.min(c.settledAt, j.settledAt);
    c.jobs++;
    commits.set(j.commit, c);
  }
  for (const c of commits.values()) fsyncWait.fill(1, cell(c.ranAt), cell(c.settledAt));
  let cores = 0;
  let allIdle = 0;
  let idleOnFsync = 0;
  let servingOnly = 0;
  let servingIdleWorkerBusy = 0;
  let counted = 0;
  for (let i = 0; i < cells; i++) {
    if (!traced[i]) continue;
    counted++;
    const s = serving[i]!;
    cores += Math.min(2, s + working[i]!);
    if (working[i] === 0 && s < 0.5) {
      allIdle++;
      if (fsyncWait[i]) idleOnFsync++;
    } else if (working[i] === 0) servingOnly++;
    else if (s < 0.5) servingIdleWorkerBusy++;
  }
  const pct = (n: number) => `${((100 * n) / counted).toFixed(0)}%`;
  const perSlot = Array.from({ length: workers }, (_, k) => parts.filter((p) => p.slot === k));
  const busyMs = perSlot.map((ps) => ps.reduce((n, p) => n + p.endedAt - p.startedAt, 0));
  const sizes = parts.map((p) => p.verifies + p.signs);
  const wall = counted * step;
  const turnMs = turns.map((t) => t.to - t.from);
  const commitList = [...commits.values()];
  return [
    `trace over ${f1(wall)} ms: cores busy on average ${(cores / counted).toFixed(2)} of 2; ` +
      `neither the serving thread nor a worker working ${pct(allIdle)} (of it waiting for a group-commit fsync ${pct(idleOnFsync)}), ` +
      `the serving thread alone ${pct(servingOnly)}, workers only (serving thread idle) ${pct(servingIdleWorkerBusy)}`,
    `  serving thread: busy ${pct(turns.reduce((n, t) => n + t.busy * (t.to - t.from), 0) / step)} of the time; turns (timer samples) ${turns.length}, ms per sample median ${f1(q(turnMs, 0.5))}, p90 ${f1(q(turnMs, 0.9))}`,
    `  workers: busy ${busyMs.map((b) => pct(b / step)).join(" / ")}; parts ${perSlot.map((p) => p.length).join(" / ")}; calls per part p10/median/p90 ${q(sizes, 0.1)}/${q(sizes, 0.5)}/${q(sizes, 0.9)}; ` +
      `posted → started median ${f1(q(parts.map((p) => p.startedAt - p.postedAt), 0.5))} ms (p90 ${f1(q(parts.map((p) => p.startedAt - p.postedAt), 0.9))}), ended → answered ${f1(q(parts.map((p) => p.answeredAt - p.endedAt), 0.5))} ms (p90 ${f1(q(parts.map((p) => p.answeredAt - p.endedAt), 0.9))})`,
    `  group commit: ${commitList.length} commits, jobs per commit p10/median/p90 ${q(commitList.map((c) => c.jobs), 0.1)}/${q(commitList.map((c) => c.jobs), 0.5)}/${q(commitList.map((c) => c.jobs), 0.9)}; ` +
      `COMMIT → answers (the fsync) median ${f1(q(commitList.map((c) => c.settledAt - c.ranAt), 0.5))} ms, p90 ${f1(q(commitList.map((c) => c.settledAt - c.ranAt), 0.9))}; waited on ${pct(fsyncWait.reduce((n, x, i) => n + (traced[i]! & x), 0))} of the time`,
  ].join("\n");
}
