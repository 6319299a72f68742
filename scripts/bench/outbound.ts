// Outbound benchmark (issue 18), next to scripts/bench/inbound.ts: the owner sends intents through
// the owner API (POST /api/svc/intents: validated, stored in the durable outbox, 202), and the
// outbox job signs them and delivers them over TLS. The sender is a real `kith serve` pinned to
// CPU 0; the recipients are 8 agents served by this script (their cards, and an INK endpoint that
// counts what arrives and answers 202) on the last CPU. A real receiving node would answer 429
// past 120 intents a minute from one address (INK route limits), and the outbox delivers one
// message per peer at a time, so a stub stands in for the receiving side: its cost is measured by
// the inbound bench. Measured: the owner API's accept rate and the end-to-end rate from the first
// POST until the last intent has arrived, against the bare native Ed25519 verify rate on CPU 0 in
// the same run (as the inbound bench), and the sender's CPU time per delivered intent.
// KITH_BENCH_ROOT=<another checkout> runs that checkout's node (e.g. main, to compare).
// Usage: bun scripts/bench/outbound.ts [messages=2000] [concurrency=32]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateKeyPairSync } from "node:crypto";
import { encodeEd25519PublicKey, encodeX25519PublicKey } from "../../src/ink/index.ts";
import { bareVerifySamples } from "./bare-verify.ts";

const MESSAGES = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const ROOT = resolve(process.env.KITH_BENCH_ROOT ?? join(import.meta.dir, "../.."));
const TLS = join(resolve(import.meta.dir, "../.."), "test/fixtures/tls");
const work = mkdtempSync(join(tmpdir(), "kith-bench-out-"));
const bun = process.execPath;
const CPUS = navigator.hardwareConcurrency;
const LAST = String(Math.max(0, CPUS - 1));
const pinned = Bun.which("taskset") && !process.env.KITH_BENCH_NO_PIN;
const pin = (cpus: string, cmd: string[]) => (pinned ? ["taskset", "-c", cpus, ...cmd] : cmd);
if (pinned && CPUS > 1) Bun.spawnSync(["taskset", "-a", "-p", "-c", LAST, String(process.pid)]);

async function cpuMs(pid: number): Promise<number | null> {
  try {
    const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
const kith = (args: string[]) => {
  const r = Bun.spawnSync([bun, join(ROOT, "src/main.ts"), ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`kith ${args[0]}: ${r.stderr.toString()}`);
  return r.stdout.toString();
};
const freePort = () => 20000 + Math.floor(Math.random() * 20000);

// ── recipients: 8 agents whose cards and INK endpoints this script serves over TLS ──────────
const RECIPIENTS = 8;
const recipients = Array.from({ length: RECIPIENTS }, () => {
  const pub = Buffer.from((generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }) as { x: string }).x, "base64url");
  return { agentId: `svc:${encodeEd25519PublicKey(pub)}`, mb: encodeEd25519PublicKey(pub) };
});
let arrived = 0;
const stub = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  tls: { cert: await Bun.file(join(TLS, "localhost.crt")).text(), key: await Bun.file(join(TLS, "localhost.key")).text() },
  async fetch(req): Promise<Response> {
    const path = new URL(req.url).pathname;
    const r = recipients[Number(/^\/r(\d+)\//.exec(path)?.[1] ?? -1)];
    if (!r) return new Response("not found", { status: 404 });
    if (req.method === "POST") {
      await req.arrayBuffer();
      arrived++;
      return Response.json({ status: "accepted" }, { status: 202 });
    }
    const i = recipients.indexOf(r);
    return Response.json({
      protocol: "ink/0.1", agentId: r.agentId, handle: `recipient${i}`, displayName: `Recipient ${i}`,
      endpoint: `https://localhost:${stub.port}/r${i}/ink/v1/${r.agentId}/intent`, publicKeyMultibase: r.mb,
      capabilities: { intentsAccepted: ["ask"], intentsSent: ["ask"] }, availability: { timezone: "UTC" },
      keys: { signing: [{ keyId: "k1", algorithm: "Ed25519", publicKeyMultibase: r.mb, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [{ keyId: "e1", algorithm: "X25519", publicKeyMultibase: encodeX25519PublicKey(new Uint8Array(32).fill(9)), status: "active", validFrom: "2026-01-01T00:00:00.000Z" }] },
      supportedProtocolVersions: ["ink/0.1"],
    });
  },
});
const cardUrl = (i: number) => `https://localhost:${stub.port}/r${i}/ink/v1/${encodeURIComponent(recipients[i]!.agentId)}/agent.json`;

// ── the sender node ──────────────────────────────────────────────────────────────────────────
const portA = freePort();
const dirA = join(work, "sender");
kith(["init", "--data-dir", dirA, "--handle", "sender", "--public-url", `http://127.0.0.1:${portA}`, "--owner-email", "owner@bench.example"]);
const sender = Bun.spawn(pin("0", [bun, join(ROOT, "src/main.ts"), "serve", "--data-dir", dirA, "--port", String(portA), "--log-level", "warn"]), {
  env: { ...process.env, KITH_ALLOW_PRIVATE_PEERS: "1", KITH_TLS_CA_FILE: join(TLS, "ca.crt") },
  stdout: "ignore",
  stderr: "pipe",
});
const urlA = `http://127.0.0.1:${portA}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${urlA}/health`)).ok) break;
  } catch {}
  if (i > 500) throw new Error("the sender did not start");
  await Bun.sleep(20);
}
const code = kith(["owner", "code", "--data-dir", dirA]).trim().split("\n").at(-1)!.trim();
const signIn = await fetch(`${urlA}/auth/email/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "owner@bench.example", code }) });
const { accessToken } = (await signIn.json()) as { accessToken: string };
const countIn = () => arrived;

let n = 0;
async function sendOne(first: number | null = null): Promise<number> {
  const i = n++;
  const to = recipients[first ?? i % RECIPIENTS]!.agentId;
  const res = await fetch(`${urlA}/api/svc/intents`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ to, ...(first !== null ? { cardUrl: cardUrl(first) } : {}), intent: "ask", payload: { question: `Question ${i}: ${"What did you learn about running agents at home? ".repeat(16)}`.slice(0, 900), context: "bench" } }),
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST /api/svc/intents answered ${res.status}: ${text}`);
  return res.status;
}
async function settle(target: number, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (countIn() < target) {
    if (performance.now() > until) return false;
    await Bun.sleep(10);
  }
  return true;
}

// Warm-up: a first intent to each recipient names its card (the sender fetches and keeps it), then the JITs warm.
for (let i = 0; i < RECIPIENTS; i++) await sendOne(i);
await Promise.all(Array.from({ length: 200 - RECIPIENTS }, () => sendOne()));
if (!(await settle(200, 60_000))) throw new Error("the warm-up intents were not delivered");

const base = countIn();
const cpu0 = await cpuMs(sender.pid);
const t0 = performance.now();
const statuses = new Map<number, number>();
let issued = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (issued < MESSAGES) {
      issued++;
      const status = await sendOne();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  }),
);
const apiMs = performance.now() - t0;
const done = await settle(base + MESSAGES, 300_000);
const e2eMs = performance.now() - t0;
const cpu1 = await cpuMs(sender.pid);
const delivered = countIn() - base;
sender.kill("SIGTERM");
await sender.exited;
stub.stop(true);

const samples = bareVerifySamples((cmd) => pin("0", cmd)).sort((x, y) => x - y);
const bare = samples[Math.floor(samples.length / 2)]!;
const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
rmSync(work, { recursive: true, force: true });

const e2e = delivered / (e2eMs / 1000);
console.log(`outbound bench: ${MESSAGES} intents to ${RECIPIENTS} recipients at concurrency ${CONCURRENCY}, sender on CPU 0, recipients on CPU ${LAST}, load average ${load}${ROOT !== resolve(import.meta.dir, "../..") ? `, code from ${ROOT}` : ""}`);
console.log(`owner API accepted:     ${Math.round(MESSAGES / (apiMs / 1000))} intents/s   (statuses: ${[...statuses].map(([s, c]) => `${s}×${c}`).join(", ")})`);
console.log(`delivered end to end:   ${Math.round(e2e)} intents/s   (${delivered}/${MESSAGES} arrived${done ? "" : ", timed out"})`);
console.log(`bare native verify:     ${bare} verifies/s (CPU 0, same run)`);
console.log(`ratio:                  ${(e2e / bare).toFixed(3)}x   (delivered / bare verify; the inbound bench's ratio is the receiving side's)`);
if (cpu0 !== null && cpu1 !== null) console.log(`sender CPU:             ${Math.round(((cpu1 - cpu0) / Math.max(1, delivered)) * 1000)} µs per delivered intent`);
