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
  const app = composeApp(surface(), createSequentialIds("X"), (base) => base.post("/notes", ({ body }) => body, { body: jsonBody(v.object({ text: v.string() })) }));
  const res = await app.handle(new Request("http://localhost/notes", { method: "POST", headers: { "content-type": "application/json" }, body: '{"text":"hi"}' }));
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ text: "hi" });
});
