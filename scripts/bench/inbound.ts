// Inbound federation benchmark (issue 5): accepted-and-durably-stored intents per second on one
// node, p50/p99 latency at a fixed offered rate of 1,000/s, and the bare native Ed25519 verify
// rate measured in the same run on the same core. The node is a real `kith serve` process pinned
// to CPU 0 (plain HTTP on loopback, as behind a TLS proxy); this script is the load generator.
// Senders are many distinct agents whose cards this script serves over TLS; every request is a
// distinct, freshly signed 1–2 KB intent with its own nonce.
// It also prints the node process's CPU time per request in both phases (Linux /proc): at 1,000/s the
// queueing latency is mostly a matter of how busy that one core already is.
// Usage: bun scripts/bench/inbound.ts [seconds=8] [concurrency=64]
import { Database } from "bun:sqlite";
import { createPrivateKey, createPublicKey, sign as nodeSign } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bodySignatureDomain, buildSignatureBase, canonicalize, encodeEd25519PublicKey, encodeX25519PublicKey, formatTimestamp } from "../../src/ink/index.ts";

const SECONDS = Number(process.argv[2] ?? 8);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const SENDERS = 400;
const ROOT = resolve(import.meta.dir, "../..");
const TLS = join(ROOT, "test/fixtures/tls");
const work = mkdtempSync(join(tmpdir(), "kith-bench-in-"));
const bun = process.execPath;
/** User+system CPU time (ms) a process has used so far, from /proc (Linux); null elsewhere. */
async function cpuMs(pid: number): Promise<number | null> {
  try {
    const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks (100/s)
  } catch {
    return null;
  }
}
const pin = (cpu: number, cmd: string[]) => (Bun.which("taskset") && !process.env.KITH_BENCH_NO_PIN ? ["taskset", "-c", String(cpu), ...cmd] : cmd);

// ── senders: deterministic Ed25519 keys, cards served over TLS from this process ─────────────
const PKCS8 = Buffer.from("302e020100300506032b657004220420", "hex");
type Sender = { agentId: string; key: ReturnType<typeof createPrivateKey>; cardPath: string };
const senders: Sender[] = [];
for (let i = 0; i < SENDERS; i++) {
  const seed = new Bun.CryptoHasher("sha256").update(`bench-sender-${i}`).digest();
  const key = createPrivateKey({ key: Buffer.concat([PKCS8, seed]), format: "der", type: "pkcs8" });
  const pub = Buffer.from((createPublicKey(key).export({ format: "jwk" }) as { x: string }).x, "base64url");
  const agentId = `svc:${encodeEd25519PublicKey(pub)}`;
  senders.push({ agentId, key, cardPath: `/s${i}/ink/v1/${encodeURIComponent(agentId)}/agent.json` });
}
let cardPort = 0;
const cardServer = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  tls: { cert: await Bun.file(join(TLS, "localhost.crt")).text(), key: await Bun.file(join(TLS, "localhost.key")).text() },
  fetch(req): Response {
    const path = new URL(req.url).pathname;
    const i = Number(/^\/s(\d+)\//.exec(path)?.[1] ?? -1);
    const s = senders[i];
    if (!s) return new Response("not found", { status: 404 });
    const mb = s.agentId.slice(4);
    const card: Record<string, unknown> = {
      protocol: "ink/0.1", agentId: s.agentId, handle: `sender${i}`, displayName: `Sender ${i}`,
      endpoint: `https://localhost:${cardPort}/s${i}/ink/v1/${s.agentId}/intent`, publicKeyMultibase: mb,
      capabilities: { intentsAccepted: ["ask"], intentsSent: ["ask"] }, availability: { timezone: "UTC" },
      keys: { signing: [{ keyId: "k1", algorithm: "Ed25519", publicKeyMultibase: mb, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [{ keyId: "e1", algorithm: "X25519", publicKeyMultibase: encodeX25519PublicKey(new Uint8Array(32).fill(9)), status: "active", validFrom: "2026-01-01T00:00:00.000Z" }] },
      supportedProtocolVersions: ["ink/0.1"],
    };
    return Response.json(card);
  },
});
cardPort = cardServer.port!;

// ── the node under test ──────────────────────────────────────────────────────────────────────
const dataDir = join(work, "node");
const init = Bun.spawnSync([bun, join(ROOT, "src/main.ts"), "init", "--data-dir", dataDir, "--handle", "bench", "--public-url", "https://bench.example"], { stdout: "pipe", stderr: "pipe" });
if (init.exitCode !== 0) throw new Error(init.stderr.toString());
const nodeAgentId = /agent id:\s+(\S+)/.exec(init.stdout.toString())![1]!;
{
  const db = new Database(join(dataDir, "kith.db"));
  const now = Date.now();
  const insert = db.prepare("INSERT INTO connections (id, principal, agent_id, card_url, status, initiated_by, created_at, updated_at) VALUES (?, ?, ?, ?, 'connected', 'us', ?, ?)");
  db.transaction(() => senders.forEach((s, i) => insert.run(`con_${i}`, `key:${s.agentId.slice(4)}`, s.agentId, `https://localhost:${cardServer.port}${s.cardPath}`, now, now)))();
  // The owner's default policy (draft_only: every intent becomes a pending action, the most writes),
  // with the per-sender hourly budget raised for a load test.
  db.prepare("INSERT INTO owner_policy (id, max_autonomy_level, max_inbound_rate, accept_foreign_agents, updated_at) VALUES (1, 'draft_only', 1000000000, 1, ?)").run(now);
  db.close();
}
const port = 20000 + Math.floor(Math.random() * 20000);
const profile = process.env.KITH_BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.KITH_BENCH_PROFILE}`] : [];
const node = Bun.spawn(pin(0, [bun, ...profile, join(ROOT, "src/main.ts"), "serve", "--data-dir", dataDir, "--port", String(port), "--public-url", "https://bench.example", "--log-level", "warn"]), {
  env: { ...process.env, KITH_ALLOW_PRIVATE_PEERS: "1", KITH_TLS_CA_FILE: join(TLS, "ca.crt"), KITH_TRUST_PROXY: "1" },
  stdout: "ignore",
  stderr: process.env.KITH_EXP_STATS ? "inherit" : "pipe",
});
const url = `http://127.0.0.1:${port}/ink/v1/${encodeURIComponent(nodeAgentId)}/intent`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
  } catch {}
  if (i > 500) throw new Error("node did not start");
  await Bun.sleep(20);
}

// ── signed requests (native signing, so generating them does not dominate) ──────────────────
let seq = 0;
const path = new URL(url).pathname;
function request(): { body: string; authorization: string; ip: string } {
  const n = seq++;
  const s = senders[n % SENDERS]!;
  const now = formatTimestamp(Date.now());
  const env: Record<string, unknown> = {
    protocol: "ink/0.1", id: `bench-${n}-${Math.random().toString(36).slice(2)}`, correlationId: `thread-${n}`, createdAt: now,
    from: s.agentId, to: nodeAgentId, intent: "ask", timestamp: now, nonce: `n${n}x${Math.random().toString(36).slice(2, 14)}aaaa`, signingKeyId: "k1",
    payload: { question: `Question ${n}: ${"Could you share what you learned about running agents at home? ".repeat(14)}`.slice(0, 1100), context: "bench" },
  };
  const unsigned = canonicalize(env);
  if (!unsigned.ok) throw new Error("jcs");
  env.signature = nodeSign(null, Buffer.from(bodySignatureDomain("ink/0.1", "svc") + unsigned.text), s.key).toString("base64url");
  const base = buildSignatureBase({ method: "POST", path, recipientDid: nodeAgentId, body: env, timestamp: now });
  if (!base.ok) throw new Error("base");
  const sig = nodeSign(null, Buffer.from(base.base), s.key).toString("base64url");
  return { body: JSON.stringify(env), authorization: `INK-Ed25519 ${sig} keyId=k1`, ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}
async function send(r: ReturnType<typeof request>): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: r.authorization, "x-forwarded-for": r.ip }, body: r.body });
  await res.arrayBuffer();
  return res.status;
}

// Warm-up: one request per sender (the node fetches and caches each card).
await Promise.all(senders.map(async () => send(request())));

// ── latency: open loop at 1,000 requests per second (first, on a warm node that is not still
// absorbing a saturation run) ──────────────────────────────────────────────────────────────────
const RATE = 1000;
const total = RATE * Math.min(SECONDS, 10);
const prepared = Array.from({ length: total }, () => request());
const latencies: number[] = [];
const latencyCpu0 = await cpuMs(node.pid);
const start = performance.now();
await Promise.all(
  prepared.map(async (r, i) => {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const t = performance.now();
    await send(r);
    latencies.push(performance.now() - t);
  }),
);
const latencyWall = performance.now() - start;
const latencyCpu1 = await cpuMs(node.pid);
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;

// ── throughput: closed loop at fixed concurrency ─────────────────────────────────────────────
let accepted = 0;
let refused = 0;
const statuses = new Map<number, number>();
const deadline = performance.now() + SECONDS * 1000;
const throughputCpu0 = await cpuMs(node.pid);
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < deadline) {
      const status = await send(request());
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 200 && status < 300) accepted++;
      else refused++;
    }
  }),
);
const throughput = accepted / ((performance.now() - t0) / 1000);
const throughputCpu1 = await cpuMs(node.pid);

// ── durability check and bare verify rate on the node's core ─────────────────────────────────
node.kill("SIGTERM");
await node.exited;
const stored = (new Database(join(dataDir, "kith.db"), { readonly: true }).query("SELECT count(*) AS n FROM messages WHERE direction = 'in'").get() as { n: number }).n;
const verifyScript = join(work, "verify.ts");
await Bun.write(
  verifyScript,
  `import { generateKeyPairSync, sign, verify } from "node:crypto";
const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const msg = Buffer.alloc(1500, 7); const sig = sign(null, msg, privateKey);
const rates = [];
for (let r = 0; r < 5; r++) { let n = 0; const t = performance.now(); while (performance.now() - t < 400) { verify(null, msg, publicKey, sig); n++; } rates.push(n / ((performance.now() - t) / 1000)); }
rates.sort((a, b) => a - b); console.log(Math.round(rates[2]));`,
);
const bare = Number(Bun.spawnSync(pin(0, [bun, verifyScript]), { stdout: "pipe" }).stdout.toString().trim());

cardServer.stop(true);
rmSync(work, { recursive: true, force: true });
console.log(`inbound bench: ${SECONDS}s at concurrency ${CONCURRENCY}, ${SENDERS} senders, node pinned to CPU 0, synchronous=FULL`);
console.log(`accepted and stored:    ${Math.round(throughput)} intents/s   (statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(", ")}; refused ${refused})`);
console.log(`bare native verify:     ${bare} verifies/s (same core, same run)`);
console.log(`ratio:                  ${(throughput / bare).toFixed(3)}x   (target >= 0.25x)`);
console.log(`latency at ${RATE}/s offered: p50 ${pct(50).toFixed(2)} ms, p99 ${pct(99).toFixed(2)} ms   (target p99 < 10 ms)`);
const cpuLine = (label: string, a: number | null, b: number | null, requests: number, wallMs: number) =>
  a !== null && b !== null && console.log(`${label}${Math.round(((b - a) / requests) * 1000)} µs of node CPU per request, node busy ${Math.round(((b - a) / wallMs) * 100)}% of the time`);
cpuLine(`at ${RATE}/s offered:     `, latencyCpu0, latencyCpu1, total, latencyWall);
cpuLine("at saturation:          ", throughputCpu0, throughputCpu1, accepted + refused, SECONDS * 1000);
console.log(`rows stored: ${stored} inbound messages (every 2xx is a committed row)`);
