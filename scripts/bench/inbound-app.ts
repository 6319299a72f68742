// An accepted INK intent through the whole app in process (issue 18): `app.handle` of a signed
// `ping` from a connected sender — the per-address limit, the raw body, the INK core, both verifies,
// the reads before them, receiveIntent's transaction (nonce, message, thread, event, pending action,
// audit event) and its group commit with the WAL fsync — with no socket and no load generator
// competing for the core. Prints CPU µs per accepted intent: the whole process (fsync thread and
// JIT/GC threads included) and the main thread alone (process.threadCpuUsage), medians of runs.
// Bob's card is stored as a fetched contact's is (KITH_BENCH_NO_CARD=1: no card on record, the
// genesis key and the connection's card-URL lookup on every request).
// KITH_BENCH_BASE=<another checkout> boots that checkout's node in this process too and alternates
// (A/B/A/B), so before and after come from one run on a shared machine.
// Usage: bun scripts/bench/inbound-app.ts [intents per run=2000] [concurrency=32] [runs=7]
import { resolve } from "node:path";

const PER_RUN = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const RUNS = Number(process.argv[4] ?? 7);
/** Client addresses: each stays far under the INK route's 120 a minute (the test clock does not move). */
const ADDRESSES = 4096;

interface Booted {
  app: { handle(request: Request): Promise<Response> };
  agentId: string | null;
  db: { $client: { query(sql: string): { run(...args: unknown[]): unknown } } };
  clock: { now(): number };
  logLines: unknown[];
  collaborators: { writes: { close(): Promise<void> } };
  close(): void;
}
interface Signed { body: string; authorization: string }

const roots = [{ label: "this", root: resolve(import.meta.dir, "../..") }];
if (process.env.KITH_BENCH_BASE) roots.unshift({ label: "base", root: resolve(process.env.KITH_BENCH_BASE) });

async function load(label: string, root: string) {
  const { bootTestApp } = (await import(`${root}/test/helpers/boot.ts`)) as { bootTestApp(o?: object): Booted };
  const { signedIntent } = (await import(`${root}/test/helpers/ink.ts`)) as { signedIntent(p: string, n: Booted, o: object): Signed };
  const { personaKey } = (await import(`${root}/test/helpers/personas.ts`)) as { personaKey(p: string, role: string): { publicKeyMultibase: string; keyId: string } };
  const { encodeX25519PublicKey } = (await import(`${root}/src/ink/index.ts`)) as { encodeX25519PublicKey(k: Uint8Array): string };
  const node = bootTestApp({ name: `alice-${label}`, persona: "alice" });
  const now = node.clock.now();
  const bob = `svc:${personaKey("bob", "signing").publicKeyMultibase}`;
  // Bob is a connection; the owner's default autonomy holds every intent (a pending action: the most writes).
  node.db.$client.query("INSERT INTO connections (id, principal, agent_id, status, initiated_by, created_at, updated_at) VALUES ('con_bob', ?, ?, 'connected', 'us', ?, ?)").run(`key:${bob.slice(4)}`, bob, now, now);
  if (!process.env.KITH_BENCH_NO_CARD) {
    // Bob's card as the node would have fetched and kept it (the common path: a contact's card is known).
    const mb = bob.slice(4);
    const key = personaKey("bob", "signing");
    const card = {
      protocol: "ink/0.1", agentId: bob, handle: "bob", displayName: "Bob", endpoint: `https://bob.example.com/ink/v1/${bob}/intent`, publicKeyMultibase: mb,
      capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] }, availability: { timezone: "UTC" },
      keys: { signing: [{ keyId: key.keyId, algorithm: "Ed25519", publicKeyMultibase: mb, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [{ keyId: "e1", algorithm: "X25519", publicKeyMultibase: encodeX25519PublicKey(new Uint8Array(32).fill(9)), status: "active", validFrom: "2026-01-01T00:00:00.000Z" }] },
      supportedProtocolVersions: ["ink/0.1"],
    };
    node.db.$client
      .query("INSERT INTO peer_cards (principal, agent_id, card_url, card_json, fetched_at, expires_at, signing_set_observed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)")
      .run(`key:${mb}`, bob, "https://bob.example.com/agent.json", JSON.stringify(card), now, now + 86_400_000, now, now);
  }
  node.db.$client.query("INSERT INTO owner_policy (id, max_autonomy_level, max_inbound_rate, accept_foreign_agents, updated_at) VALUES (1, 'draft_only', 1000000000, 1, ?)").run(now);
  let sent = 0;
  const request = (s: Signed) =>
    new Request(`http://localhost/ink/v1/${node.agentId}/intent`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(s.body)), authorization: s.authorization, "x-test-remote-address": `198.51.${(sent >> 8) & 15}.${sent++ & 255}` },
      body: s.body,
    });
  const sign = (n: number) => Array.from({ length: n }, (_, i) => signedIntent("bob", node, { intent: "ping", payload: { note: `intent ${i}: ${"x".repeat(600)}` } }));
  return { label, node, request, sign };
}

const threadCpu = () => {
  const t = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage?.();
  return t ? t.user + t.system : Number.NaN;
};
const processCpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function measure(a: Awaited<ReturnType<typeof load>>, n: number): Promise<{ all: number; main: number }> {
  const requests = a.sign(n).map(a.request); // signed before timing
  const all0 = processCpu();
  const main0 = threadCpu();
  for (let i = 0; i < requests.length; i += CONCURRENCY) {
    const answers = await Promise.all(requests.slice(i, i + CONCURRENCY).map((r) => a.node.app.handle(r)));
    for (const r of answers) if (r.status !== 202) throw new Error(`answered ${r.status}: ${await r.text()}`);
  }
  const result = { all: (processCpu() - all0) / n, main: (threadCpu() - main0) / n };
  a.node.logLines.length = 0; // the test logger keeps every line; production writes them out
  return result;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const apps = [];
for (const r of roots) apps.push(await load(r.label, r.root));
for (const a of apps) await measure(a, 500); // warm-up: JIT tiers, caches
const results = new Map<string, { all: number[]; main: number[] }>();
for (let run = 0; run < RUNS; run++) {
  const parts: string[] = [];
  for (const a of run % 2 ? [...apps].reverse() : apps) {
    const r = await measure(a, PER_RUN);
    const acc = results.get(a.label) ?? { all: [], main: [] };
    acc.all.push(r.all);
    acc.main.push(r.main);
    results.set(a.label, acc);
    parts.push(`${a.label} ${r.all.toFixed(1)} (main ${r.main.toFixed(1)})`);
  }
  console.log(`run ${run + 1}: CPU µs per accepted intent: ${parts.join(", ")}`);
}
console.log(`median of ${RUNS} runs of ${PER_RUN} accepted intents, ${CONCURRENCY} at a time, CPU µs per intent:`);
for (const a of apps) {
  const r = results.get(a.label)!;
  console.log(`  ${a.label.padEnd(5)} process ${median(r.all).toFixed(1)}   main thread ${median(r.main).toFixed(1)}`);
}
if (apps.length === 2) {
  const [b, t] = [results.get("base")!, results.get("this")!];
  console.log(`  this/base (median of per-run ratios): process ${median(t.all.map((x, i) => x / b.all[i]!)).toFixed(3)}x, main thread ${median(t.main.map((x, i) => x / b.main[i]!)).toFixed(3)}x`);
}
for (const a of apps) {
  // Which key verified the stored intents: the card's key id, or "bootstrap" (the genesis key, no card).
  const keys = (a.node.db.$client as unknown as { query(sql: string): { all(): Array<{ keyId: string; n: number }> } }).query("SELECT key_id AS keyId, count(*) AS n FROM messages GROUP BY key_id").all();
  console.log(`  ${a.label.padEnd(5)} stored intents by key id: ${keys.map((k) => `${k.keyId} ${k.n}`).join(", ")}`);
  await a.node.collaborators.writes.close();
  a.node.close();
}
