import { afterEach, beforeEach, expect, test } from "bun:test";
import { drainMailbox } from "../../src/domain/mailbox/drain-mailbox.ts";
import { bootNetworkNode, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";
import { testClock } from "../helpers/clock.ts";

let carol: NetworkNode; // keeps the mailbox
let alice: NetworkNode; // the home node

beforeEach(async () => {
  const clock = testClock();
  carol = await bootNetworkNode({ name: "carol", clock });
  alice = await bootNetworkNode({ name: "alice", clock, mailboxUrl: `${carol.url}/mailbox` });
  expect((await asOwner(carol, "/api/svc/mailboxes", { body: { agentId: alice.agentId } })).status).toBe(201);
});
afterEach(() => stopNodes(carol, alice));

test("an empty drain is recorded: the owner sees when the mailbox was last collected", async () => {
  expect((await json(await asOwner(alice, "/api/svc/mailbox"))).lastDrainAt).toBeNull();
  expect(await drainMailbox(alice.ctx({ kind: "system", job: "mailbox" }), { waitMs: 0 })).toMatchObject({ ok: true, received: 0 });
  const use = await json(await asOwner(alice, "/api/svc/mailbox"));
  expect(use).toMatchObject({ url: `${carol.url}/mailbox`, lastError: null, received: 0, refused: 0 });
  expect(use.lastDrainAt).toBe(new Date(alice.clock.now()).toISOString());
  // and the mailbox's owner sees when it was last collected
  expect((await json(await asOwner(carol, "/api/svc/mailboxes"))).items[0].lastDrainAt).toBe(new Date(carol.clock.now()).toISOString());
});
