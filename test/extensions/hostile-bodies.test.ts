import { afterEach, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519Sign } from "../../src/ink/index.ts";
import { messages } from "../../src/db/schema/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeKey, installAcme } from "../helpers/extensions.ts";

let node: TestNode;
afterEach(() => node?.close());

/** A correctly signed request whose body is arbitrary bytes: only the body can be wrong. */
function signedRaw(n: TestNode, token: string | null, target: string, body: Uint8Array, contentType = "application/json"): Promise<Response> {
  const nonce = crypto.randomUUID();
  const timestamp = new Date(n.clock.now()).toISOString();
  const message = `POST\n${target}\n${nonce}\n${timestamp}\n${Buffer.from(sha256(body)).toString("hex")}`;
  const signature = Buffer.from(ed25519Sign(new TextEncoder().encode(message), acmeKey(0).secretKey)).toString("base64url");
  const headers: Record<string, string> = { "content-type": contentType, "x-request-nonce": nonce, "x-request-timestamp": timestamp, "x-extension-signature": signature };
  if (token) headers.authorization = `Bearer ${token}`;
  return n.request(target, { method: "POST", headers, body });
}

test("hostile bodies on the signed POST routes answer 4xx with a body, never 500, and act on nothing", async () => {
  node = bootTestApp();
  const { token, installationId } = await installAcme(node);
  const bytes = (s: string) => new TextEncoder().encode(s);
  const cases: Array<[Uint8Array, number, string?]> = [
    [Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400], // invalid UTF-8
    [bytes('{"to":"\\ud800","intent":"ping","payload":{}}'), 400], // lone surrogate
    [bytes(`{"to":"x","intent":"ping","payload":{"n":1e400}}`), 400], // number out of range
    [bytes(`${"[".repeat(5000)}${"]".repeat(5000)}`), 400], // depth
    [bytes("null"), 400],
    [bytes("[]"), 400],
    [bytes(""), 400],
    [new Uint8Array(70 * 1024).fill(0x20), 413],
    [bytes("{}"), 415, "text/plain"],
  ];
  for (const [body, status, type] of cases) {
    for (const [target, t] of [["/ext/v1/intents", token], ["/ext/v1/token", null]] as const) {
      const res = await signedRaw(node, t, target, body, type);
      const answer = (await res.json()) as { error: string };
      // the token route caps its body lower: anything large is 413 there too
      expect([target, res.status === status || (target === "/ext/v1/token" && status === 400 && res.status === 413)]).toEqual([target, true]);
      expect(typeof answer.error).toBe("string");
    }
  }
  expect(node.db.select().from(messages).all()).toEqual([]);
  expect(installationId).toBeString();
});

test("a member the signed POST routes do not know is refused by name, never dropped", async () => {
  node = bootTestApp();
  const { token, installationId } = await installAcme(node);
  const bytes = (s: string) => new TextEncoder().encode(s);
  const intent = await signedRaw(node, token, "/ext/v1/intents", bytes(JSON.stringify({ to: "x", intent: "ping", payload: {}, priority: "high" })));
  expect(intent.status).toBe(400);
  expect(((await intent.json()) as { message: string }).message).toContain("priority");
  const renew = await signedRaw(node, null, "/ext/v1/token", bytes(JSON.stringify({ installationId, ttlHour: 2 })));
  expect(renew.status).toBe(400);
  expect(((await renew.json()) as { message: string }).message).toContain("ttlHour");
  expect(node.db.select().from(messages).all()).toEqual([]);
});
