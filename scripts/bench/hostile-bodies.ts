// Hostile request bodies (issue 12): what a stranger or a careless client can cost the node with
// one small request. A real `kith serve` process on loopback (plain HTTP, Bun's parser in front)
// gets every writing operation of its own OpenAPI document, as the owner and as a stranger, with
// each hostile body below; reported per body: the median and worst handling time, next to a normal
// request measured in the same run (a valid sign-in send and a valid policy write), and the node's
// peak RSS (VmHWM, Linux) after the normal phase and after the hostile one. Last, /health latency
// while four clients send hostile bodies back to back (issue 12 saw /health take 18 s).
// Usage: bun scripts/bench/hostile-bodies.ts [repeats=3]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const REPEATS = Number(process.argv[2] ?? 3);
const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "kith-bench-hostile-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;
const email = "owner@example.com";
const node = Bun.spawn([process.execPath, "src/main.ts", "serve", "--data-dir", dir, "--port", String(port)], {
  cwd: ROOT,
  env: { ...process.env, KITH_OWNER_EMAIL: email, KITH_TRUST_PROXY: "1", KITH_LOG_LEVEL: "silent" },
  stdout: "ignore",
  stderr: "ignore",
});

const deep = (n: number) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`;
const BODIES: Array<[string, string | Uint8Array]> = [
  ["nested 15,000 deep (20 KB)", deep(15_000)],
  ["nested 32 deep (at the cap)", deep(31)],
  ["array of 20,000 strings", `{"a":[${Array(20_000).fill('"x"').join(",")}]}`],
  ["4,000 invalid array items", `{"trustedDids":[${Array(4000).fill("1").join(",")}]}`],
  ["5,000 members", `{${Array.from({ length: 5000 }, (_, i) => `"m${i}":1`).join(",")}}`],
  ["a 60 KB string", `{"a":"${"A".repeat(60_000)}"}`],
  ["5 MiB", `{"a":"${"B".repeat(5 * 1024 * 1024)}"}`],
  ["top-level []", "[]"],
  ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ["1e309", '{"a":1e309}'],
];

let ip = 0;
const nextIp = () => `10.${(++ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;
async function timed(method: string, path: string, body: string | Uint8Array | undefined, token: string | null): Promise<{ ms: number; status: number }> {
  const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": nextIp() };
  if (token) headers.authorization = `Bearer ${token}`;
  const t0 = performance.now();
  const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body }) });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}
async function peakRssMiB(): Promise<number | null> {
  try {
    const status = await Bun.file(`/proc/${node.pid}/status`).text();
    return Number(status.match(/VmHWM:\s+(\d+) kB/)![1]) / 1024;
  } catch {
    return null;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(2).padStart(8)} ms`;

try {
  let up = false;
  for (let i = 0; i < 100 && !up; i++) {
    await Bun.sleep(100);
    up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
  }
  if (!up) throw new Error("the node did not start");
  const code = Bun.spawnSync([process.execPath, "src/main.ts", "owner", "code", "--data-dir", dir, "--email", email], { cwd: ROOT }).stdout.toString().trim().split("\n").pop();
  const { accessToken: token } = (await (await fetch(`${base}/auth/email/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, code }) })).json()) as { accessToken: string };
  const doc = (await (await fetch(`${base}/.well-known/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([m]) => ["post", "put", "patch", "delete"].includes(m))
      .map(([m, op]) => ({ method: m.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x"), owner: !!op.security?.some((s) => "ownerBearer" in (s as object)) })),
  );

  // normal requests first: the baseline and the RSS they need
  const normal = { send: [] as number[], policy: [] as number[], health: [] as number[] };
  for (let i = 0; i < 300; i++) {
    normal.send.push((await timed("POST", "/auth/email/send", JSON.stringify({ email: `someone${i}@example.com` }), null)).ms);
    normal.policy.push((await timed("PUT", "/api/svc/policy", JSON.stringify({ maxAutonomyLevel: "draft_only", blockedDids: ["did:web:spam.example"] }), token)).ms);
    normal.health.push((await timed("GET", "/health", undefined, null)).ms);
  }
  const rssNormal = await peakRssMiB();

  const rows: Array<{ label: string; med: number; worst: number; where: string; statuses: Set<number> }> = [];
  for (const [label, body] of BODIES) {
    const times: number[] = [];
    let worst = { ms: 0, where: "" };
    const statuses = new Set<number>();
    for (let r = 0; r < REPEATS; r++) {
      for (const op of ops) {
        for (const auth of op.owner ? [token, null] : [null]) {
          const t = await timed(op.method, op.path, body, auth);
          times.push(t.ms);
          statuses.add(t.status);
          if (t.ms > worst.ms) worst = { ms: t.ms, where: `${op.method} ${op.path}${auth ? " (owner)" : ""}` };
        }
      }
    }
    rows.push({ label, med: median(times), worst: worst.ms, where: worst.where, statuses });
  }
  const rssHostile = await peakRssMiB();

  // /health while four clients send the worst bodies back to back
  let running = true;
  const attackers = Array.from({ length: 4 }, async () => {
    while (running) for (const [, body] of BODIES.slice(0, 3)) await timed("POST", "/auth/email/send", body, null);
  });
  const underLoad: number[] = [];
  for (let i = 0; i < 100; i++) underLoad.push((await timed("GET", "/health", undefined, null)).ms);
  running = false;
  await Promise.all(attackers);

  const baseline = median(normal.send);
  console.log(`hostile bodies: ${ops.length} writing operations × ${REPEATS} repeats, as owner and stranger (bun ${Bun.version})`);
  console.log(`normal requests (median of 300): POST /auth/email/send ${fmt(baseline)}, PUT /api/svc/policy ${fmt(median(normal.policy))}, GET /health ${fmt(median(normal.health))}`);
  console.log("");
  console.log(`${"body".padEnd(30)} ${"median".padStart(11)} ${"worst".padStart(11)}  worst/normal  statuses       worst at`);
  for (const r of rows) {
    console.log(`${r.label.padEnd(30)} ${fmt(r.med)} ${fmt(r.worst)}  ${(r.worst / baseline).toFixed(1).padStart(10)}×  ${[...r.statuses].sort().join(",").padEnd(14)} ${r.where}`);
  }
  console.log("");
  console.log(`peak RSS (VmHWM): ${rssNormal?.toFixed(1) ?? "?"} MiB after the normal requests, ${rssHostile?.toFixed(1) ?? "?"} MiB after the hostile ones`);
  console.log(`GET /health while 4 clients send hostile bodies: median ${fmt(median(underLoad))}, worst ${fmt(Math.max(...underLoad))} (idle median ${fmt(median(normal.health))})`);
} finally {
  node.kill();
  await node.exited;
  rmSync(dir, { recursive: true, force: true });
}
