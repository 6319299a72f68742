import { expect, test } from "bun:test";
import * as v from "valibot";
import type { SurfaceDeps } from "../../src/http/deps.ts";
import { composeApp } from "../../src/http/app.ts";
import { jsonBody } from "../../src/http/schemas/body.ts";
import { createSequentialIds } from "../../src/ids.ts";
import { bootTestApp } from "../helpers/boot.ts";

// The request gate reads every body; what it reads of each route is settled when the app is
// built. A route it could not read used to make it answer 500 to every request of the app.

function surface(): SurfaceDeps {
  const node = bootTestApp();
  node.close();
  return { ctx: node.ctx, node: { publicUrl: node.publicUrl, wordmark: node.wordmark, version: "0.0.0-test" }, log: node.ctx().log, clientIp: () => null, limiter: node.collaborators.limiter, now: () => node.clock.now() };
}

test("a route declaring a body without jsonBody fails the app's construction, naming the route", () => {
  expect(() => composeApp(surface(), createSequentialIds("X"), (base) => base.post("/notes", () => "ok", { body: v.object({ text: v.string() }) }))).toThrow("POST /notes: declare the body with jsonBody(schema)");
});

test("the same route with jsonBody builds, and the gate reads its body", async () => {
  const app = composeApp(surface(), createSequentialIds("X"), (base) => base.post("/notes", ({ body }) => body, { body: jsonBody(v.strictObject({ text: v.string() })) }));
  const res = await app.handle(new Request("http://localhost/notes", { method: "POST", headers: { "content-type": "application/json" }, body: '{"text":"hi"}' }));
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ text: "hi" });
});

test("a body schema that would drop unknown members (v.object, anywhere in it) fails the app's construction, naming the route and the member", () => {
  const build = (schema: v.GenericSchema, method: "post" | "patch" = "post", update = false) => () =>
    composeApp(surface(), createSequentialIds("X"), (base) =>
      method === "post" ? base.post("/notes", () => "ok", { body: jsonBody(schema, { update }) }) : base.patch("/notes", () => "ok", { body: jsonBody(schema, { update }) }));
  expect(build(v.object({ text: v.string() }))).toThrow("POST /notes: body would drop unknown members: use v.strictObject");
  expect(build(v.strictObject({ a: v.optional(v.array(v.object({ b: v.string() }))) }))).toThrow("POST /notes: body.a[] would drop unknown members");
  expect(build(v.strictObject({ a: v.record(v.string(), v.object({})) }))).toThrow("POST /notes: body.a.* would drop unknown members");
  expect(build(v.union([v.strictObject({ a: v.string() }), v.pipe(v.object({ b: v.string() }), v.readonly())]))).toThrow("POST /notes: body would drop unknown members");
  expect(build(v.looseObject({ a: v.string() }))).not.toThrow(); // the deliberate exception (RFC 6749 §3.2)
  expect(build(v.strictObject({ a: v.optional(v.string()) }), "patch")).toThrow("PATCH /notes: declare the body with jsonBody(schema, { update: true })");
  expect(build(v.strictObject({ a: v.optional(v.string()) }), "patch", true)).not.toThrow();
});
