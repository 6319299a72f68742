import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { buildContract, type Exchange } from "../helpers/openapi-contract.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

// Every test's requests are checked against the OpenAPI document (test/helpers/contract-preload.ts).
// Here: the check itself catches drift, and the document says what issue 12 found it did not.

let node: TestNode;
let doc: { paths: Record<string, Record<string, any>> };
beforeAll(async () => {
  node = bootTestApp();
  doc = await json(await node.request("/.well-known/openapi.json"));
});
afterAll(() => node.close());

const exchange = (x: Partial<Exchange> & Pick<Exchange, "method" | "url" | "status">): Exchange => ({
  requestType: null,
  requestBody: null,
  responseType: "application/json",
  responseBody: "",
  ...x,
});

describe("the contract check", () => {
  test("catches a document that refuses what the node accepted, an undocumented status and a response off its schema", () => {
    const drifted = structuredClone(doc);
    const skills = drifted.paths["/discover"]!.get.parameters.find((p: { name: string }) => p.name === "skills");
    skills.schema = { type: "string", maxLength: 10 }; // what the document used to say
    delete drifted.paths["/health"]!.get.responses["503"];
    const contract = buildContract(drifted);
    const search = exchange({ method: "GET", url: "http://localhost/discover?q=ab&skills=typescript,rust", status: 200, responseBody: '{"results":[]}' });
    expect(buildContract(doc).check(search)).toEqual([]);
    expect(contract.check(search)).toEqual([expect.stringContaining("GET /discover → 200: query parameter skills")]);
    expect(contract.check(exchange({ method: "GET", url: "http://localhost/health", status: 503, responseBody: "{}" }))).toEqual(["GET /health → 503: status 503 is not documented"]);
    expect(contract.check(exchange({ method: "GET", url: "http://localhost/health", status: 200, responseBody: '{"status":"fine"}' }))).toEqual([expect.stringContaining("GET /health → 200: response body")]);
    const body = exchange({ method: "PUT", url: "http://localhost/api/svc/policy", status: 200, requestType: "application/json", requestBody: '{"maxAutonomyLevel":"sometimes"}' });
    expect(buildContract(doc).check(body)).toEqual([expect.stringContaining("PUT /api/svc/policy → 200: request body")]);
  });
});

describe("what the document says", () => {
  test("/discover: list parameters are comma-separated strings, limit 1-50", async () => {
    const params = Object.fromEntries(doc.paths["/discover"]!.get.parameters.map((p: { name: string; schema: unknown }) => [p.name, p.schema]));
    for (const name of ["skills", "interests", "openTo", "roles"]) expect(params[name]).toMatchObject({ type: "string", maxLength: 2000 });
    expect(params.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50 });
    expect((await node.request("/discover?q=ab&skills=typescript,rust&limit=50")).status).toBe(200);
    expect((await node.request("/discover?q=ab&limit=51")).status).toBe(400);
  });

  test("paginated lists: limit 1-200", () => {
    const limit = doc.paths["/api/svc/inbox"]!.get.parameters.find((p: { name: string }) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 200 });
  });

  test("the INK POST operations have their request bodies", () => {
    for (const path of ["/ink/v1/{agentId}/intent", "/agents/{agentId}/inbox", "/ink/v1/{agentId}/agent-card-query", "/ink/v1/directory/listings", "/ink/v1/discovery/query"]) {
      const body = doc.paths[path]!.post.requestBody;
      expect({ path, required: body?.required, json: !!body?.content["application/json"]?.schema }).toEqual({ path, required: true, json: true });
    }
    expect(JSON.stringify(doc.paths["/ink/v1/{agentId}/intent"]!.post.requestBody)).toContain("correlationId");
  });

  test("email members are format: email; bodies list only the media types the node reads", () => {
    for (const path of ["/auth/email/send", "/auth/email/verify"]) {
      expect(doc.paths[path]!.post.requestBody.content["application/json"].schema.properties.email).toMatchObject({ type: "string", format: "email" });
      expect(Object.keys(doc.paths[path]!.post.requestBody.content)).toEqual(["application/json"]);
    }
    expect(Object.keys(doc.paths["/auth/refresh"]!.post.requestBody.content)).toEqual(["application/json", "application/x-www-form-urlencoded"]);
    expect(doc.paths["/api/svc/discovery/publish"]!.post.requestBody.required).toBe(false);
    expect(doc.paths["/api/svc/discovery/unpublish"]!.post.requestBody).toBeUndefined();
    for (const status of ["400", "413", "415"]) expect(doc.paths["/api/svc/policy"]!.put.responses[status]).toBeDefined();
    expect(doc.paths["/auth/email/send"]!.post.responses["429"]).toBeDefined();
  });

  test("a nullable enum allows its null", async () => {
    const schema = doc.paths["/api/svc/connections/{id}"]!.get.responses["200"].content["application/json"].schema.properties.layerOverride;
    expect(schema.enum).toContain(null);
    expect((await asOwner(node, "/api/svc/connections/nope")).status).toBe(404);
  });
});
