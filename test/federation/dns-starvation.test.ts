// Review of issues 12/21, defect 1 (DNS starvation), from the attacker's side: strangers name hosts
// whose DNS never answers (did:web senders, card hints, listings); the lookups they cause must never
// delay or fail the lookups the node and its owner start.
import { describe, expect, test } from "bun:test";
import { bootNetworkNode, testLookup } from "../helpers/boot.ts";
import { stopAfterEach } from "../helpers/cleanup.ts";
import { postIntent, signedIntentFrom } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";

const keep = stopAfterEach();

/**
 * A resolver like the runtime's: `threads` lookups at once, the rest queue; `*.slow.test` never
 * answers (a black-holed authoritative server) until the test releases them all.
 */
function blackHoleResolver(threads: number) {
  let busy = 0;
  const queue: Array<() => void> = [];
  const hung: Array<() => void> = [];
  let released = false;
  const lookup = async (host: string) => {
    if (busy >= threads) await new Promise<void>((go) => queue.push(go));
    busy++;
    try {
      if (host.endsWith(".slow.test") && !released) await new Promise<void>((_, fail) => hung.push(() => fail(new Error("released"))));
      return await testLookup(host);
    } finally {
      busy--;
      queue.shift()?.();
    }
  };
  const release = () => {
    released = true;
    hung.splice(0).forEach((fail) => fail());
  };
  return { lookup, release, hung: () => hung.length };
}

describe("names strangers make the node look up", () => {
  test("never delay or fail the owner's own lookups", async () => {
    const dns = blackHoleResolver(8);
    const bob = keep(await bootNetworkNode({ name: "bob", persona: "bob", lookup: dns.lookup }));
    const carol = keep(await bootNetworkNode({ name: "carol", persona: "carol" }));
    keep({ stop: dns.release });
    const key = personaKey("acme", "signing");
    const strangers: Array<Promise<Response>> = [];
    // 16 did:web senders on 16 hosts that never answer, from 16 addresses
    for (let i = 0; i < 16; i++) {
      const req = signedIntentFrom(key, `did:web:x${i}.slow.test`, bob, "connection_request", { method: "discovery", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } });
      strangers.push(postIntent(bob, req, { headers: { "x-test-remote-address": `198.51.100.${i + 1}` } }));
    }
    for (let i = 0; i < 50 && dns.hung() === 0; i++) await Bun.sleep(5);
    expect(dns.hung()).toBeGreaterThan(0);

    const added = await asOwner(bob, "/api/svc/connections", { body: { cardUrl: carol.cardUrl, context: "hello carol" } });
    expect(added.status).toBe(202);
    expect(dns.hung()).toBeLessThanOrEqual(4); // strangers hold a small pool of their own, never the runtime's last thread

    dns.release();
    for (const res of await Promise.all(strangers)) expect(res.status).toBeGreaterThanOrEqual(400);
  });
});
