// Review of issues 12/21, defect 2, from the attacker's side: fresh key-derived ids (each with its own
// key, spread over addresses under the per-address limit) must not lock the node's connections out
// of the hourly per-sender budget, nor fill the owner's inbox with connection requests.
import { describe, expect, test } from "bun:test";
import { connections } from "../../src/db/schema/index.ts";
import { agentKeyFromPrivate } from "../../src/security/agent-keys.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { postIntent, signedIntent, signedIntentFrom } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

const request = { method: "discovery", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } };
let strangerCount = 0;

/** A connection_request from a fresh key-derived id (its own key), from one of 10 addresses. */
function stranger(node: TestNode): Promise<Response> {
  const n = ++strangerCount;
  const seed = new Uint8Array(32);
  new DataView(seed.buffer).setUint32(0, n);
  seed[31] = 7;
  const key = agentKeyFromPrivate("signing", `k${n}`, 0, seed);
  const id = `svc:${key.publicKeyMultibase}`;
  return postIntent(node, signedIntentFrom(key, id, node, "connection_request", request), { headers: { "x-test-remote-address": `2001:db8:${n % 10}::1` } });
}

function friendOf(node: TestNode): () => Promise<Response> {
  const principal = `key:${personaKey("bob", "signing").publicKeyMultibase}`;
  node.db.insert(connections).values({ id: "con_bob", principal, agentId: `svc:${personaKey("bob", "signing").publicKeyMultibase}`, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
  return () => postIntent(node, signedIntent("bob", node, { intent: "ping", payload: {} }), { headers: { "x-test-remote-address": "192.0.2.77" } });
}

describe("a flood of fresh ids", () => {
  test("that fills the strangers' hourly table never denies a connection", async () => {
    const alice = bootTestApp({ maxRateKeysPerBucket: 50 });
    const friend = friendOf(alice);
    const codes = new Map<number, number>();
    for (let i = 0; i < 60; i++) {
      const res = await stranger(alice);
      codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
    }
    expect(codes.get(429)).toBeGreaterThan(0); // the table is full: new strangers wait
    expect((await friend()).status).toBe(202);
    alice.close();
  });

  test("leaves at most 60 connection requests an hour in the owner's inbox; then strangers get 429 and connections do not", async () => {
    const alice = bootTestApp();
    const friend = friendOf(alice);
    for (let i = 0; i < 60; i++) expect((await stranger(alice)).status).toBe(202);
    const over = await stranger(alice);
    expect(over.status).toBe(429);
    expect((await json(over)).code).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await friend()).status).toBe(202);
    expect(alice.db.select().from(connections).all().filter((c) => c.status === "pending")).toHaveLength(60);
    alice.close();
  }, 30_000);
});
