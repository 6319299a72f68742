import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { issueMessage } from "../../src/http/schemas/body.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner, ownerToken } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

// Every owner write takes JSON of the shape it documents, and no text the node would store
// damaged. Operations come from the node's own OpenAPI document, so new routes are covered.

let node: TestNode;
let token: string;
let writes: Array<{ method: string; path: string; takesBody: boolean }>;

beforeAll(async () => {
  node = bootTestApp();
  token = await ownerToken(node);
  const doc = await json(await node.request("/.well-known/openapi.json"));
  writes = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[]; requestBody?: { content: Record<string, unknown> } }>>).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method, op]) => ["post", "put", "patch", "delete"].includes(method) && op.security?.some((s) => "ownerBearer" in (s as object)))
      .filter(([, op]) => !op.requestBody || "application/json" in op.requestBody.content) // transcription is multipart (test/assistant/transcribe.test.ts)
      .map(([method, op]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x"), takesBody: !!op.requestBody })),
  );
});
afterAll(() => node.close());

const bytes = (...parts: Array<string | number[]>) => new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

function raw(op: { method: string; path: string }, body: string | Uint8Array, contentType: string | null): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (contentType) headers["content-type"] = contentType;
  return node.request(op.path, { method: op.method, headers, body });
}

describe("owner writes: media type and shape", () => {
  test("the document lists every owner write (with and without a body)", () => {
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(expect.arrayContaining(["PUT /api/svc/policy", "POST /api/svc/rules", "PATCH /api/svc/connections/x", "POST /api/svc/discovery/unpublish", "DELETE /api/svc/profile/x"]));
  });

  test("a body that is not application/json answers 415, on every owner write", async () => {
    for (const op of writes) {
      for (const type of ["application/octet-stream", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", null]) {
        const res = await raw(op, "{}", type);
        expect({ op: `${op.method} ${op.path}`, type, status: res.status }).toEqual({ op: `${op.method} ${op.path}`, type, status: 415 });
        expect(await json(res)).toMatchObject({ error: "unsupported_media_type", message: expect.stringContaining("application/json") });
      }
    }
  });

  test("a JSON body of the wrong shape answers 400, on every owner write: [] is not an object", async () => {
    for (const op of writes) {
      for (const body of ["[]", '"text"', "1", "true"]) {
        const res = await raw(op, body, "application/json");
        expect({ op: `${op.method} ${op.path}`, body, status: res.status }).toEqual({ op: `${op.method} ${op.path}`, body, status: 400 });
        expect((await json(res)).error).toBe("invalid_input");
      }
    }
  });

  test("PUT /api/svc/policy: octet-stream, [] and nested arrays for objects change nothing", async () => {
    const policy = { maxAutonomyLevel: "full", blockedDids: ["did:web:spam.example"] };
    expect((await asOwner(node, "/api/svc/policy", { method: "PUT", body: policy })).status).toBe(200);
    expect((await raw({ method: "PUT", path: "/api/svc/policy" }, JSON.stringify(policy), "application/octet-stream")).status).toBe(415);
    const array = await raw({ method: "PUT", path: "/api/svc/policy" }, "[]", "application/json");
    expect(await json(array)).toEqual({ error: "invalid_input", message: "invalid request: body: a JSON object is expected, not an array" });
    expect(await json(await asOwner(node, "/api/svc/policy"))).toMatchObject(policy);
    // the same class one level down: an array where the schema has an object
    const nested = await asOwner(node, "/api/svc/profile/public", { method: "PUT", body: { headline: "x", skills: [], interests: [], openTo: [], availability: [] } });
    expect(await json(nested)).toEqual({ error: "invalid_input", message: expect.stringMatching(/^invalid request: body\.availability: .*JSON object/) });
    const rule = await asOwner(node, "/api/svc/rules", { body: { name: "r", match: [], action: { type: "hold" } } });
    expect(await json(rule)).toEqual({ error: "invalid_input", message: "invalid request: body.match: a JSON object is expected, not an array" });
  });

  test("routes that take no body accept none or {}, and refuse anything else", async () => {
    const noBody = writes.filter((w) => !w.takesBody);
    expect(noBody.map((w) => `${w.method} ${w.path}`)).toEqual(expect.arrayContaining(["POST /api/svc/discovery/unpublish", "POST /api/svc/inbox/x/draft", "DELETE /api/svc/rules/x"]));
    for (const op of noBody) {
      for (const body of ['{"x":1}', "{nope", "[]"]) {
        const res = await raw(op, body, "application/json");
        expect({ op: `${op.method} ${op.path}`, body, status: res.status }).toEqual({ op: `${op.method} ${op.path}`, body, status: 400 });
      }
      expect((await json(await raw(op, '{"x":1}', "application/json"))).message).toBe("invalid request: body: this route takes no request body (send none, or {})");
    }
    const unpublish = { method: "POST", path: "/api/svc/discovery/unpublish" };
    expect((await raw(unpublish, "", null)).status).toBe(200);
    expect((await raw(unpublish, "{}", "application/json")).status).toBe(200);
  });
});

describe("owner text: what the node would store damaged is refused, naming the member", () => {
  const cases: Array<[string, Uint8Array, string]> = [
    ["invalid UTF-8 in a value", bytes('{"note":"caf', [0xc3], '"}'), "body.note: not valid UTF-8 text"],
    ["invalid UTF-8 deep down", bytes('{"a":[{"b":"ok"},{"c":"', [0xed, 0xa0, 0x80], '"}]}'), "body.a[1].c: not valid UTF-8 text"],
    ["invalid UTF-8 in a member name", bytes('{"a":{"', [0xff], '":1}}'), "body.a (a member name): not valid UTF-8 text"],
    ["an overlong encoding", bytes('{"note":"', [0xc0, 0xaf], '"}'), "body.note: not valid UTF-8 text"],
    ["NUL", bytes('{"note":"a\\u0000b"}'), "body.note: contains a NUL character (U+0000)"],
    ["NUL in a list", bytes('{"tags":["ok","\\u0000"]}'), "body.tags[1]: contains a NUL character (U+0000)"],
    ["a lone surrogate", bytes('{"note":"\\udc00"}'), "body.note: not valid Unicode text (an unpaired UTF-16 surrogate such as \\ud800)"],
  ];

  test("on every owner write that takes a body", async () => {
    for (const op of writes.filter((w) => w.takesBody)) {
      for (const [label, body, message] of cases) {
        const res = await raw(op, body, "application/json");
        expect({ op: `${op.method} ${op.path}`, label, status: res.status }).toEqual({ op: `${op.method} ${op.path}`, label, status: 400 });
        expect({ op: `${op.method} ${op.path}`, label, message: (await json(res)).message }).toEqual({ op: `${op.method} ${op.path}`, label, message: `invalid request: ${message}` });
      }
    }
  });

  test("nothing reaches storage: a profile headline with NUL or bad UTF-8 leaves the card as it was, a note is not stored as U+FFFD", async () => {
    const card = async () => (await json(await node.request(`/ink/v1/${node.agentId}/agent.json`))).profile;
    const before = await card();
    const profile = (headline: number[] | string) => bytes('{"headline":"Builds ', typeof headline === "string" ? headline : headline, ' agents","skills":[],"interests":[],"openTo":[]}');
    for (const bad of [[0xe2, 0x82], "\\u0000"]) {
      const res = await raw({ method: "PUT", path: "/api/svc/profile/public" }, profile(bad as number[] | string), "application/json");
      expect(await json(res)).toEqual({ error: "invalid_input", message: expect.stringMatching(/^invalid request: body\.headline: /) });
    }
    expect(await card()).toEqual(before);
    const contact = await asOwner(node, "/api/svc/import/linkedin", { body: { csv: "First Name,Last Name,URL,Email Address,Company,Position,Connected On\nAda,L,https://www.linkedin.com/in/ada,,,,\n" } });
    expect(contact.status).toBe(200);
    const id = (await json(await asOwner(node, "/api/svc/connections"))).items[0].id;
    const note = await raw({ method: "POST", path: `/api/svc/connections/${id}/notes` }, bytes('{"text":"met at ', [0xff], '"}'), "application/json");
    expect(await json(note)).toEqual({ error: "invalid_input", message: "invalid request: body.text: not valid UTF-8 text" });
    expect((await json(await asOwner(node, `/api/svc/connections/${id}/notes`))).items).toEqual([]);
    expect((await asOwner(node, `/api/svc/connections/${id}/notes`, { body: { text: "met at the café �" } })).status).toBe(201); // a real U+FFFD is text
  });

  test("a caller without the token still learns nothing beyond 401 about what the values say", async () => {
    const res = await node.request("/api/svc/profile/public", { method: "PUT", headers: { "content-type": "application/json" }, body: '{"headline":"a\\u0000"}' });
    expect(res.status).toBe(401);
  });
});

describe("schema refusals", () => {
  test("name the first failing member in the gate's spelling and never quote a long value back", async () => {
    const rule = await asOwner(node, "/api/svc/rules", { body: { name: "r", match: { intents: ["ask", 5] }, action: { type: "hold" } } });
    expect((await json(rule)).message).toStartWith("invalid request: body.match.intents[1]: ");
    const long = "x".repeat(50_000);
    const profile = await asOwner(node, "/api/svc/profile/public", { method: "PUT", body: { headline: "h", skills: [], interests: [], openTo: [], availability: { timezone: long } } });
    expect((await json(profile)).message).toBe("invalid request: body.availability.timezone: Invalid length: Expected <=64 but received 50000");
    // a verb's own message quoting the value is cut too
    const intent = await asOwner(node, "/api/svc/intents", { body: { to: node.agentId, intent: long, payload: {} } });
    expect(intent.status).toBe(400);
    expect(((await json(intent)).message as string).length).toBeLessThanOrEqual(501);
  });
});

test("issueMessage replaces a long quoted input by its length", () => {
  const result = v.safeParse(v.object({ mode: v.picklist(["a", "b"]) }), { mode: "z".repeat(1000) });
  expect(result.success).toBe(false);
  expect(issueMessage(result.issues![0], "body")).toBe('body.mode: Invalid type: Expected ("a" | "b") but received a string of 1000 characters');
});
