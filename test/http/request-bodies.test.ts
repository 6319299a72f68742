import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bootTestApp, TEST_REMOTE_HEADER, type TestNode } from "../helpers/boot.ts";
import { asOwner, ownerToken } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

// Hostile request bodies, sent to every operation of the node's own OpenAPI document that
// writes: a new route is covered the day it is added. Each must answer a 4xx {error, message}
// that never echoes what was sent.

let node: TestNode;
let token: string;
let operations: Array<{ method: string; path: string; owner: boolean; takesBody: boolean }>;
let ip = 0;

beforeAll(async () => {
  node = bootTestApp({ auth: { ownerEmail: "alice@example.com" } });
  token = await ownerToken(node);
  const doc = await json(await node.request("/.well-known/openapi.json"));
  operations = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>>).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ["post", "put", "patch", "delete"].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x"), owner: !!op.security?.some((s) => "ownerBearer" in (s as object)), takesBody: !!op.requestBody })),
  );
});
afterAll(() => node.close());

const deep = (n: number) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`;
const encoder = new TextEncoder();
const HOSTILE: Array<[string, string | Uint8Array]> = [
  ["nested 15,000 deep", deep(15_000)],
  ["nested 33 deep", deep(32)],
  ["array of 20,000 strings", `{"a":[${Array(20_000).fill('"x"').join(",")}]}`],
  ["5,000 members", `{${Array.from({ length: 5000 }, (_, i) => `"m${i}":1`).join(",")}}`],
  ["a 60 KB string", `{"a":"${"A".repeat(60_000)}"}`],
  ["a body over every cap (5 MiB)", `{"a":"${"B".repeat(5 * 1024 * 1024)}"}`],
  ["top-level []", "[]"],
  ["top-level string", '"x"'],
  ["invalid UTF-8", new Uint8Array([...encoder.encode('{"a":"'), 0xff, 0xfe, ...encoder.encode('"}')])],
  ["1e309", '{"a":1e309}'],
  ["NUL", '{"a":"x\\u0000y"}'],
  ["lone surrogate", '{"a":"\\ud800"}'],
  ["not JSON", "{nope"],
];

function send(op: { method: string; path: string }, body: string | Uint8Array, headers: Record<string, string>): Promise<Response> {
  ip++;
  return node.request(op.path, { method: op.method, headers: { "content-type": "application/json", [TEST_REMOTE_HEADER]: `10.9.${ip >> 8 & 255}.${ip & 255}`, ...headers }, body });
}

async function expectShapedRefusal(res: Response, where: string, sent: string | Uint8Array): Promise<{ error: string; message: string }> {
  expect({ where, status: res.status >= 400 && res.status < 500 }).toEqual({ where, status: true });
  const text = await res.text();
  let body: { error?: unknown; message?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // leaves body empty: the assertion below names the route
  }
  expect({ where, error: typeof body.error, message: typeof body.message }).toEqual({ where, error: "string", message: "string" });
  const message = body.message as string;
  expect({ where, short: message.length <= 500 }).toEqual({ where, short: true });
  if (typeof sent === "string" && sent.length > 200) expect(message).not.toContain(sent.slice(5, 105));
  return body as { error: string; message: string };
}

describe("hostile bodies to every operation that writes", () => {
  test("the document lists the writing operations, owner and public, with and without bodies", () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    expect(names).toEqual(expect.arrayContaining(["PUT /api/svc/policy", "POST /auth/email/send", "POST /ink/v1/x/intent", "POST /api/svc/discovery/unpublish", "DELETE /api/svc/rules/x"]));
    expect(operations.length).toBeGreaterThan(25);
  });

  test("as a stranger: each answers a 4xx {error, message} and never echoes the body", async () => {
    for (const op of operations) {
      for (const [label, body] of HOSTILE) await expectShapedRefusal(await send(op, body, {}), `${op.method} ${op.path} (${label})`, body);
    }
  });

  test("as the owner: each answers a 4xx {error, message} and never echoes the body", async () => {
    for (const op of operations.filter((o) => o.owner)) {
      for (const [label, body] of HOSTILE) {
        const res = await send(op, body, { authorization: `Bearer ${token}` });
        const err = await expectShapedRefusal(res, `${op.method} ${op.path} (${label})`, body);
        expect({ op: `${op.method} ${op.path}`, label, auth: err.error === "unauthorized" }).toEqual({ op: `${op.method} ${op.path}`, label, auth: false });
      }
    }
  });

  test("the gate's answers: 413 over the size cap, 400 naming where the depth cap was crossed, 400 for 1e309 naming the member", async () => {
    const policy = { method: "PUT", path: "/api/svc/policy" };
    const owner = { authorization: `Bearer ${token}` };
    expect(await json(await send(policy, `{"a":"${"B".repeat(2 * 1024 * 1024)}"}`, owner))).toMatchObject({ error: "payload_too_large" });
    expect((await json(await send(policy, `{"trustedDids":${deep(40).slice(5, -1)}}`, owner))).message).toBe("invalid request: body.trustedDids[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 32 levels");
    expect((await json(await send(policy, `{"maxInboundRate":1e309}`, owner))).message).toBe("invalid request: body.maxInboundRate: a number out of range (it must fit a 64-bit double)");
    expect((await json(await send(policy, `[${"1,".repeat(5000)}1]`, owner))).message).toBe("invalid request: body: more than 4096 values (members and array items)");
  });
});
