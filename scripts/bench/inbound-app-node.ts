// A node of one checkout booted in this process for the in-process inbound benchmarks
// (inbound-app.ts, inbound-turns.ts): Alice, with Bob as a connection whose card is stored as a
// fetched contact's is (KITH_BENCH_NO_CARD=1: no card on record), an owner policy whose hourly
// limit never binds, and signed `ping`s from Bob made before any timing.
// Client addresses cycle through 4,096: each stays far under the INK route's 120 a minute (the
// test clock does not move).

export interface Booted {
  app: { handle(request: Request): Promise<Response> };
  agentId: string | null;
  db: { $client: { query(sql: string): { run(...args: unknown[]): unknown } } };
  clock: { now(): number };
  logLines: unknown[];
  collaborators: { writes: { close(): Promise<void>; run(fn: (tx: unknown) => unknown): Promise<unknown> } };
  close(): void;
}
interface Signed { body: string; authorization: string }

/** `crypto`: where the node's Ed25519 batches go (default: the process's batcher, a worker per spare core). */
export async function loadInboundNode(label: string, root: string, options: { crypto?: unknown } = {}) {
  const { bootTestApp } = (await import(`${root}/test/helpers/boot.ts`)) as { bootTestApp(o?: object): Booted };
  const { signedIntent } = (await import(`${root}/test/helpers/ink.ts`)) as { signedIntent(p: string, n: Booted, o: object): Signed };
  const { personaKey } = (await import(`${root}/test/helpers/personas.ts`)) as { personaKey(p: string, role: string): { publicKeyMultibase: string; keyId: string } };
  const { encodeX25519PublicKey } = (await import(`${root}/src/ink/index.ts`)) as { encodeX25519PublicKey(k: Uint8Array): string };
  const node = bootTestApp({ name: `alice-${label}`, persona: "alice", ...(options.crypto ? { crypto: options.crypto } : {}) });
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

