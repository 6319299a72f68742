import { afterEach, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/**
 * Owner writes refuse what they do not know (a 400 naming the member), never drop it: a typo
 * (`stauts`) used to answer 200 and change nothing. The class is enforced where the app is built
 * (every body schema strict, every PATCH declared an update: test/http/app-construction.test.ts);
 * these are the routes the review named, through the real app.
 */
let node: TestNode;
afterEach(() => node?.close());

const cases: Array<[string, string, Record<string, unknown>, string]> = [
  ["PATCH", "/api/svc/connections/c-1", { stauts: "blocked" }, "body.stauts: unknown member"],
  ["PATCH", "/api/svc/connections/c-1", { status: "blocked", extra: 1 }, "body.extra: unknown member"],
  ["POST", "/api/svc/connections/c-1/notes", { text: "a", extra: 1 }, "body.extra: unknown member"],
  ["POST", "/api/svc/intents", { to: "https://bob.example.com/.well-known/ink/agent.json", intent: "ping", payload: {}, extra: 1 }, "body.extra: unknown member"],
  ["POST", "/api/svc/connections", { cardUrl: "https://bob.example.com/.well-known/ink/agent.json", extra: 1 }, "body.extra: unknown member"],
  ["POST", "/api/svc/pending/p-1", { decision: "approve", extra: 1 }, "body.extra: unknown member"],
  ["POST", "/api/svc/inbox/m-1/respond", { payload: {}, extra: 1 }, "body.extra: unknown member"],
  ["PATCH", "/api/svc/rules/r-1", { name: "x", extra: 1 }, "body.extra: unknown member"],
  ["POST", "/api/svc/discovery/publish", { tags: ["x"], bogus: 1 }, 'unknown member "bogus"'],
];

test("an unknown member in an owner write is a 400 naming it", async () => {
  node = bootTestApp();
  for (const [method, path, body, says] of cases) {
    const res = await asOwner(node, path, { method, body });
    const answer = { method, path, status: res.status, message: (await json(res)).message as string };
    expect(answer).toEqual({ method, path, status: 400, message: expect.stringContaining(says) });
  }
});

test("an update that names nothing to update is a 400 listing what it could name", async () => {
  node = bootTestApp();
  for (const path of ["/api/svc/connections/c-1", "/api/svc/rules/r-1"]) {
    const res = await asOwner(node, path, { method: "PATCH", body: {} });
    expect({ path, status: res.status }).toEqual({ path, status: 400 });
    expect((await json(res)).message).toMatch(/^invalid request: body: nothing to update: give at least one of \w+(, \w+)+$/);
  }
});
