import { afterEach, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { json } from "../helpers/process.ts";
import { personaKeyGenerator } from "../helpers/personas.ts";
import { createAgent } from "../../src/domain/identity/create-agent.ts";

let node: TestNode;
afterEach(() => node?.close());

describe("discovery documents", () => {
  test("GET /health reports status, version and the database", async () => {
    node = bootTestApp();
    const res = await node.request("/health");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "ok", version: "0.0.0-test", database: "ok", agent: true });
  });

  test("GET /health answers 503 when the database is gone", async () => {
    node = bootTestApp();
    node.db.$client.close();
    const res = await node.request("/health");
    expect(res.status).toBe(503);
    expect(await json(res)).toMatchObject({ status: "degraded", database: "unavailable" });
    node.close = () => {};
  });

  test("GET /health reads the database on every request: an agent created or a database closed after earlier checks shows on the next", async () => {
    node = bootTestApp({ agent: false });
    expect(await json(await node.request("/health"))).toEqual({ status: "ok", version: "0.0.0-test", database: "ok", agent: false });
    createAgent(node.ctx(), { handle: "alice", displayName: "Alice", timezone: "Europe/Paris" }, { generateKey: personaKeyGenerator("alice") });
    expect(await json(await node.request("/health"))).toEqual({ status: "ok", version: "0.0.0-test", database: "ok", agent: true });
    node.db.$client.close();
    const res = await node.request("/health");
    expect(res.status).toBe(503);
    expect(await json(res)).toEqual({ status: "degraded", version: "0.0.0-test", database: "unavailable", agent: false });
    node.close = () => {};
  });

  test("the OpenAPI document is valid OpenAPI 3.1 and generated from the routes", async () => {
    node = bootTestApp();
    const res = await node.request("/.well-known/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const doc = await json(res);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.info.version).toBe("0.1.0");
    expect(Object.keys(doc["x-svc"].extensionScopes)).toEqual(["identity.read", "connections.read", "connections.write", "agent.chat", "briefing.read", "events.read", "events.write"]);
    for (const path of ["/health", "/ink/v1/{agentId}/agent.json", "/agents/{agentId}/agent.json", "/.well-known/ink/agent.json", "/{handle}"]) {
      expect(doc.paths[path]?.get).toBeDefined();
    }
    expect(doc.paths["/{handle}"].get.responses["200"].content["application/json"].schema.properties.found.type).toBe("boolean");
  });

  test("the OpenAPI document describes owner sign-in and puts /api/svc behind the owner bearer scheme", async () => {
    node = bootTestApp();
    const doc = await json(await node.request("/.well-known/openapi.json"));
    for (const [path, method] of [
      ["/auth/providers", "get"], ["/auth/email/send", "post"], ["/auth/email/verify", "post"], ["/auth/refresh", "post"], ["/auth/logout", "post"],
      ["/auth/{provider}/authorize", "get"], ["/auth/{provider}/callback", "post"], ["/auth/atproto/client-metadata.json", "get"],
    ] as const) {
      expect({ path, method, op: !!doc.paths[path]?.[method] }).toEqual({ path, method, op: true });
      expect(doc.paths[path][method].security).toBeUndefined();
    }
    for (const method of ["get", "post"]) expect(doc.paths["/api/svc"][method].security).toEqual([{ ownerBearer: [] }]);
    expect(doc.paths["/api/svc"].get.responses["401"]).toBeDefined();
    const answers = doc.paths["/auth/email/verify"].post.responses["200"].content["application/json"].schema;
    // SPEC's TokenPair, or (X-Kith-Session: cookie) the browser session without the refresh token
    const pair = (answers.anyOf ?? [answers]).find((s: { properties?: Record<string, unknown> }) => s.properties?.refreshToken);
    expect(pair.required).toEqual(expect.arrayContaining(["accessToken", "refreshToken"]));
    const authorize = doc.paths["/auth/{provider}/authorize"].get.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]);
    expect(authorize).toEqual(expect.arrayContaining([["provider", true], ["redirect_uri", true], ["state", true], ["code_challenge", true], ["mode", false]]));
    const callback = doc.paths["/auth/{provider}/callback"].post.requestBody.content["application/json"].schema;
    expect(callback.required.sort()).toEqual(["code", "code_verifier", "redirect_uri", "state"]);
  });

  test("the OAuth metadata lists exactly what the node supports", async () => {
    node = bootTestApp({ auth: { ownerEmail: "alice@example.com" } });
    const meta = await json(await node.request("/.well-known/oauth-authorization-server"));
    expect(meta).toMatchObject({
      issuer: "https://alice.example.com",
      token_endpoint: "https://alice.example.com/auth/refresh",
      token_endpoint_auth_methods_supported: ["none"],
      grant_types_supported: ["refresh_token"],
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      revocation_endpoint: "https://alice.example.com/auth/logout",
    });
    expect(meta.kith_sign_in.providers).toEqual(["email"]);
    expect(meta.kith_sign_in.email).toEqual({ send_endpoint: "https://alice.example.com/auth/email/send", verify_endpoint: "https://alice.example.com/auth/email/verify" });
    expect(meta.kith_sign_in.google).toBeUndefined();
    expect(meta.kith_sign_in.refresh_token).toEqual({ rotation: true, reuse_revokes_session: true, reuse_grace_seconds: 30, lifetime_seconds: 30 * 24 * 3600 });
    expect(meta.authorization_endpoint).toBeUndefined();
  });

  test("OAuth authorization server metadata names this node as issuer", async () => {
    node = bootTestApp();
    const res = await node.request("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    const meta = await json(res);
    expect(meta.issuer).toBe("https://alice.example.com");
    expect(Array.isArray(meta.response_types_supported)).toBe(true);
  });

  test("ai.txt is plain text with a policy and an index of the documents and the card", async () => {
    node = bootTestApp();
    const res = await node.request("/ai.txt");
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    const text = await res.text();
    expect(text).toContain(`Agent-Card: https://alice.example.com/ink/v1/${encodeURIComponent(node.agentId!)}/agent.json`);
    expect(text).toContain("OpenAPI: https://alice.example.com/.well-known/openapi.json");
    expect(text).toContain("Discover: https://alice.example.com/discover?q={words}");
    expect(text).toContain("Directory-Listings: https://alice.example.com/ink/v1/directory/listings");
    expect(text).toContain("OAuth-Authorization-Server:");
    expect(text).toMatch(/policy/i);
  });
});

describe("handles and errors", () => {
  test("GET /{handle}: found, unknown (still 200), case-insensitive", async () => {
    node = bootTestApp();
    expect(await json(await node.request("/alice"))).toEqual({ found: true, agentId: node.agentId, handle: "alice" });
    expect(await json(await node.request("/Alice"))).toEqual({ found: true, agentId: node.agentId, handle: "alice" });
    const unknown = await node.request("/bob");
    expect(unknown.status).toBe(200);
    expect(await json(unknown)).toEqual({ found: false, agentId: null, handle: "bob" });
  });

  test("reserved paths are not handles", async () => {
    node = bootTestApp();
    // (/discover is a route of its own now: test/discovery/search.test.ts)
    for (const p of ["/api", "/auth", "/ext", "/marketplace", "/ink", "/agents"]) {
      const res = await node.request(p);
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ error: "not_found" });
    }
  });

  test("unknown routes and methods answer a JSON {error, message} 404, with a request id", async () => {
    node = bootTestApp();
    for (const [method, path] of [["GET", "/a/b/c"], ["DELETE", "/health"], ["POST", "/.well-known/openapi.json"]] as const) {
      const res = await node.request(path, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = await json(res);
      expect(Object.keys(body).sort()).toEqual(["error", "message"]);
      expect(res.headers.get("x-request-id")).toMatch(/^A\d{25}$/);
    }
  });

  test("every request is logged once with its id, method, path and status, never its query", async () => {
    node = bootTestApp();
    await node.request("/health?token=SHOULD-NOT-APPEAR", { headers: { "x-request-id": "proxy-id-12345" } });
    await Bun.sleep(5);
    const line = node.logLines.find((l) => l.msg === "request" && l.path === "/health");
    expect(line).toMatchObject({ reqId: "proxy-id-12345", method: "GET", status: 200 });
    expect(JSON.stringify(node.logLines)).not.toContain("SHOULD-NOT-APPEAR");
  });
});
