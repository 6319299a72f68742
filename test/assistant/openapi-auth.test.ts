import { afterEach, beforeEach, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { json } from "../helpers/process.ts";

let alice: TestNode;
beforeEach(() => {
  alice = bootTestApp({ name: "alice" });
});
afterEach(() => alice.close());

const ROUTES = [
  ["GET", "/api/svc/connections/x/notes"], ["POST", "/api/svc/connections/x/notes"],
  ["GET", "/api/svc/policy"], ["PUT", "/api/svc/policy"],
  ["GET", "/api/svc/rules"], ["POST", "/api/svc/rules"], ["GET", "/api/svc/rules/x"], ["PATCH", "/api/svc/rules/x"], ["DELETE", "/api/svc/rules/x"], ["GET", "/api/svc/rules/x/runs"],
  ["GET", "/api/svc/profile"], ["PUT", "/api/svc/profile/public"], ["DELETE", "/api/svc/profile/public"],
  ["POST", "/api/svc/inbox/x/draft"], ["POST", "/api/svc/conversations/x/summarize"],
  ["POST", "/api/svc/import/linkedin"], ["POST", "/api/svc/media/transcribe"],
] as const;

test("every assistant route needs the owner token (401 {error, message}, before any validation)", async () => {
  for (const [method, path] of ROUTES) {
    const res = await alice.request(path, { method, headers: { "content-type": "application/json" }, ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }) });
    expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
    expect(Object.keys(await json(res)).sort()).toEqual(["error", "message"]);
  }
});

test("the OpenAPI document describes every assistant route behind ownerBearer, with record shapes", async () => {
  const doc = await json(await alice.request("/.well-known/openapi.json"));
  for (const [method, path] of ROUTES) {
    const op = doc.paths[path.replace("/x", "/{id}").replace("/public", "/{scope}")]?.[method.toLowerCase()];
    expect({ method, path, documented: op !== undefined }).toEqual({ method, path, documented: true });
    expect(op.security).toEqual([{ ownerBearer: [] }]);
  }
  const connection = doc.paths["/api/svc/connections/{id}"].get.responses["200"].content["application/json"].schema;
  expect(connection.properties.layer.enum).toEqual(["inner", "active", "sympathy", "recognition", "known"]);
  expect(connection.properties.health.anyOf ?? connection.properties.health.enum).toBeDefined();
  expect(doc.paths["/api/svc/connections/{id}"].patch.requestBody.content["application/json"].schema.properties.layer).toBeDefined();
  const rule = doc.paths["/api/svc/rules"].post.requestBody.content["application/json"].schema;
  expect(rule.required).toEqual(expect.arrayContaining(["name", "match", "action"]));
  expect(doc.paths["/api/svc/policy"].put.requestBody.content["application/json"].schema.properties.maxAutonomyLevel.enum).toEqual(["none", "draft_only", "auto_respond", "full"]);
  expect(doc.paths["/api/svc/media/transcribe"].post.requestBody.content["multipart/form-data"].schema.required).toEqual(["audio"]);
  const draft = doc.paths["/api/svc/inbox/{id}/draft"].post.responses["200"].content["application/json"].schema;
  expect(draft.properties.backend.enum).toEqual(["llm", "builtin"]);
  expect(doc.paths["/api/svc/import/linkedin"].post.responses["413"]).toBeDefined();
});
