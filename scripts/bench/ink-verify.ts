// Benchmark: throughput of the full inbound INK decision for a typical 1–2 KB signed intent
// (raw gate + parse + schema + JCS + transport signature + body signature + replay check)
// against the bare native Ed25519 verify rate of the same runtime, on one core.
//
//   taskset -c 0 bun scripts/bench/ink-verify.ts [--seconds 1] [--runs 5] [--warmup 3]
//
// Not a test: numbers depend on the machine. Each measurement is a median over several runs.
// A second part prints CPU µs per intent (process.cpuUsage, A/B interleaved, medians): the INK
// core without curve work (a verifier that answers true), the two strict verifies of the same
// intent's exact messages alone, and the full decision: full − core shows what a verify costs
// inside the path against its cost alone.
import { readFileSync } from "node:fs";
import {
  buildSignedEnvelope,
  createMemoryNonceStore,
  decideInbound,
  deriveAgentId,
  type Ed25519Verifier,
  formatTimestamp,
  generateEd25519KeyPair,
  type InboundPolicy,
  nobleStrictVerifier,
  type NonceStore,
  prepareOutbound,
  resolveSenderKeys,
} from "../../src/ink/index.ts";
import { nativeEd25519Verify, nativeStrictVerifier } from "../../src/security/ed25519-native.ts";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i] ?? "", process.argv[i + 1] ?? "");
const SECONDS = Number(args.get("--seconds") ?? 1);
const RUNS = Number(args.get("--runs") ?? 5);
const MESSAGES = 512;

const sender = generateEd25519KeyPair(new Uint8Array(32).fill(7));
const receiver = generateEd25519KeyPair(new Uint8Array(32).fill(9));
const from = deriveAgentId(sender.publicKey, "svc");
const to = deriveAgentId(receiver.publicKey, "svc");
const now = Date.UTC(2026, 6, 1);
const timestamp = formatTimestamp(now);
const endpoint = "https://receiver.example/ink/v1/inbound";
const policy: InboundPolicy = { ownAgentId: to, endpointPath: "/ink/v1/inbound", wordmark: "svc", supportedIntents: ["ask", "ping"] };
const keys = resolveSenderKeys({ agentId: from });
const encoder = new TextEncoder();

// A typical intent: an `ask` with about a kilobyte of question text → ~1.6 KB on the wire.
const question = "Could you share how your team evaluates agent-to-agent protocols? ".repeat(16);
type Fixture = { body: Uint8Array; authorization: string; base: Uint8Array; signature: Uint8Array };
const fixtures: Fixture[] = [];
for (let i = 0; i < MESSAGES; i++) {
  const nonce = `bench-nonce-${String(i).padStart(8, "0")}-abcdef`;
  const built = buildSignedEnvelope(
    { protocol: "ink/0.1", id: `msg-${i}`, correlationId: "thread-1", createdAt: timestamp, from, to, intent: "ask", payload: { question, context: "benchmark" }, timestamp, nonce, signingKeyId: "sig-2026-07" },
    sender.secretKey,
    "svc",
  );
  if (!built.ok) throw new Error(`fixture: ${built.reason}`);
  const req = prepareOutbound({ envelope: built.envelope, recipient: { agentId: to, endpoint }, secretKey: sender.secretKey, keyId: "sig-2026-07", wordmark: "svc" });
  if (!req.ok) throw new Error(`fixture: ${req.reason}`);
  const sig = Buffer.from(req.authorization.slice("INK-Ed25519 ".length, "INK-Ed25519 ".length + 86), "base64url");
  const base = encoder.encode(`ink/0.1\nPOST\n/ink/v1/inbound\n${to}\n${req.bodyText}\n${timestamp}`);
  fixtures.push({ body: encoder.encode(req.bodyText), authorization: req.authorization, base, signature: new Uint8Array(sig) });
}
const bodyBytes = fixtures[0]?.body.length ?? 0;

let cursor = 0;
function rate(fn: (i: number) => void, seconds: number): number {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let ops = 0;
  while (performance.now() < end) {
    for (let k = 0; k < 16; k++, ops++) fn(cursor++);
  }
  return (ops * 1000) / (performance.now() - t0);
}

function bareVerify(verify: Ed25519Verifier) {
  return (i: number) => {
    const f = fixtures[i % MESSAGES] as Fixture;
    if (!verify(sender.publicKey, f.base, f.signature)) throw new Error("bare verify failed");
  };
}

// A real single-use store; it is renewed at the start of each pass over the fixtures so every
// decision does a genuine insert-if-absent of a nonce it has not seen in that pass.
let store: NonceStore = createMemoryNonceStore();
function fullDecision(verifier: Ed25519Verifier) {
  let n = 0;
  return () => {
    const k = n++ % MESSAGES;
    if (k === 0) store = createMemoryNonceStore();
    const f = fixtures[k] as Fixture;
    const d = decideInbound({ body: f.body, authorization: f.authorization, now }, policy, { keys, verifier, replay: { store } });
    if (!d.ok) throw new Error(`decision rejected: ${d.reason}`);
  };
}

// The two messages each decision verifies (transport base, body-signing text) of every fixture.
const signedMessages = fixtures.map((f) => {
  const calls: [Uint8Array, Uint8Array, Uint8Array][] = [];
  const d = decideInbound({ body: f.body, authorization: f.authorization, now }, policy, {
    keys,
    verifier: (pk, m, sig) => calls.push([pk, m, sig]) > 0,
    replay: { defer: true },
  });
  if (!d.ok || calls.length !== 2) throw new Error("fixture: expected two verifies");
  return calls;
});

const cases = {
  bareNative: bareVerify(nativeEd25519Verify),
  fullNative: fullDecision(nativeStrictVerifier),
  bareNoble: bareVerify(nobleStrictVerifier),
};
// Warm up every path until the optimizing JIT tiers have settled (their compiler threads share
// the pinned core, so a short warm-up under-reports the steady state).
const WARMUP = Number(args.get("--warmup") ?? 3);
for (let w = 0; w < WARMUP * 5; w++) {
  rate(cases.bareNative, 0.1);
  rate(cases.fullNative, 0.1);
}
rate(cases.bareNoble, 0.3);

// Interleave short slices of bare and full so load drift on a shared machine hits both alike;
// a run's ratio compares slices measured back to back.
const SLICE = 0.1;
const results = { bareNative: [] as number[], fullNative: [] as number[], ratio: [] as number[], bareNoble: [] as number[] };
for (let r = 0; r < RUNS; r++) {
  let bareOps = 0;
  let fullOps = 0;
  for (let s = 0; s < SECONDS / (2 * SLICE); s++) {
    bareOps += rate(cases.bareNative, SLICE) * SLICE;
    fullOps += rate(cases.fullNative, SLICE) * SLICE;
  }
  const span = SECONDS / 2;
  results.bareNative.push(bareOps / span);
  results.fullNative.push(fullOps / span);
  results.ratio.push(fullOps / bareOps);
}
// Noble last: its BigInt garbage would otherwise land in the next run's slices.
for (let r = 0; r < RUNS; r++) results.bareNoble.push(rate(cases.bareNoble, 0.3));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const cpus = (() => {
  try {
    return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "?";
  } catch {
    return "?";
  }
})();
console.log(`ink-verify: CPUs allowed ${cpus} (run under \`taskset -c 0\` for one core)`);
console.log(`ink-verify: body ${bodyBytes} bytes, ${WARMUP}s warm-up, ${RUNS} runs x ${SECONDS}s (interleaved ${SLICE}s slices), medians (Bun ${Bun.version})`);
console.log(`  bare native Ed25519 verify : ${fmt(median(results.bareNative))}/s   (runs: ${results.bareNative.map(fmt).join(", ")})`);
console.log(`  full inbound decision      : ${fmt(median(results.fullNative))}/s   (runs: ${results.fullNative.map(fmt).join(", ")})`);
console.log(`  bare noble strict verify   : ${fmt(median(results.bareNoble))}/s`);
console.log(`  ratio full / bare native   : ${median(results.ratio).toFixed(3)}  (per run: ${results.ratio.map((x) => x.toFixed(3)).join(", ")}; target >= 0.40, ceiling 0.50)`);

// ── CPU µs per intent, A/B interleaved ───────────────────────────────────────────────────────
const perIntent = {
  "INK core, no curve work": fullDecision(() => true),
  "two strict verifies alone": (i: number) => {
    for (const [pk, m, sig] of signedMessages[i % MESSAGES]!) if (!nativeStrictVerifier(pk, m, sig)) throw new Error("verify failed");
  },
  "full decision": fullDecision(nativeStrictVerifier),
};
const cpuPer = (fn: (i: number) => void, n: number) => {
  const c0 = process.cpuUsage();
  for (let k = 0; k < n; k++) fn(cursor++);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
};
const cpu: Record<string, number[]> = {};
for (let r = 0; r < RUNS * 2; r++) for (const [name, fn] of Object.entries(perIntent)) (cpu[name] ??= []).push(cpuPer(fn, 1000));
const cpuMedian = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)]));
console.log(`CPU µs per intent (process.cpuUsage, ${RUNS * 2} interleaved rounds of 1,000, medians):`);
for (const [name, us] of Object.entries(cpuMedian)) console.log(`  ${name.padEnd(27)}: ${us.toFixed(1)} µs`);
const inPath = (cpuMedian["full decision"] ?? 0) - (cpuMedian["INK core, no curve work"] ?? 0);
console.log(`  the two verifies inside the decision: ${inPath.toFixed(1)} µs (full − core), alone ${(cpuMedian["two strict verifies alone"] ?? 0).toFixed(1)} µs`);
