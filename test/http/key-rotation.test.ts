import { afterEach, expect, test } from "bun:test";
import { checkCardContinuity, validateAgentCard, verifyAgentCardProof } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/** POST /api/svc/keys/rotate: planned rotation from the owner API (the console's Keys card), as `kith keys rotate`. */
let node: TestNode;
afterEach(() => node?.close());

test("rotating makes a new active signing key, retires the old one, and the card shows it at once, signed and continuous", async () => {
  node = bootTestApp();
  expect((await node.request("/api/svc/keys/rotate", { method: "POST" })).status).toBe(401);
  const before = await json(await node.request("/.well-known/ink/agent.json"));
  const oldKey = (await json(await asOwner(node, "/api/svc/keys"))).find((k: { role: string; status: string }) => k.role === "signing" && k.status === "active");
  node.clock.advance(1000);
  const res = await asOwner(node, "/api/svc/keys/rotate", { method: "POST" });
  expect(res.status).toBe(200);
  const rotated = await json(res);
  expect(rotated).toMatchObject({ retiredKeyIds: [oldKey.keyId], keySetVersion: before.keySetVersion + 1 });
  const keys = await json(await asOwner(node, "/api/svc/keys"));
  expect(keys.find((k: { keyId: string }) => k.keyId === oldKey.keyId).status).toBe("retired");
  expect(keys.find((k: { keyId: string }) => k.keyId === rotated.activeKeyId)).toMatchObject({ role: "signing", status: "active" });
  const after = await json(await node.request("/.well-known/ink/agent.json"));
  expect(after.keySetVersion).toBe(rotated.keySetVersion);
  expect(validateAgentCard(after)).toMatchObject({ ok: true });
  expect(verifyAgentCardProof(after)).toMatchObject({ ok: true, kind: "signed" });
  expect(checkCardContinuity(before, after)).toMatchObject({ ok: true });
});
