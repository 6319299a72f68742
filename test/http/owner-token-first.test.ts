// Review of issues 12/21, defect 7, from the attacker's side: anonymous requests to owner routes are
// refused 401 on the token alone, before their bodies are read or parsed (so a malformed, oversized
// or wrongly typed body still gets 401), and a client address that keeps failing the check is
// throttled, while the owner's own requests keep working. (In-process requests are cloned by the
// test helpers, which reads the stream, so "not read" is shown by the status, not by the stream.)
import { describe, expect, test } from "bun:test";
import { bootTestApp } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/** Every owner route, with a body that would fail its own checks (media type, size, JSON) if it were read. */
async function ownerRoutes(node: ReturnType<typeof bootTestApp>): Promise<Array<{ method: string; path: string }>> {
  const doc = await json(await node.request("/.well-known/openapi.json"));
  const routes: Array<{ method: string; path: string }> = [];
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    if (!path.startsWith("/api/svc")) continue;
    for (const method of Object.keys(ops)) if (["get", "post", "put", "patch", "delete"].includes(method)) routes.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "x") });
  }
  return routes;
}

describe("owner routes check the token before anything is read", () => {
  test("every owner route answers an anonymous or forged request 401, whatever its body (not the 400, 413 or 415 that reading it would give)", async () => {
    const node = bootTestApp();
    const routes = await ownerRoutes(node);
    expect(routes.length).toBeGreaterThan(30);
    const bodies: Array<[string, string]> = [["application/json", "{not json"], ["text/plain", "x"], ["application/json", JSON.stringify({ csv: "A".repeat(70_000) })]];
    let n = 0;
    for (const { method, path } of routes) {
      for (const auth of [null, "Bearer forged.token.here", "Basic eA=="]) {
        const [type, text] = bodies[n++ % bodies.length]!;
        const headers: Record<string, string> = { "content-type": type, "x-test-remote-address": `198.51.100.${n % 200}` };
        if (auth) headers.authorization = auth;
        const res = await node.request(path, { method, headers, ...(method === "GET" ? {} : { body: text }) });
        expect({ route: `${method} ${path}`, status: res.status, code: (await json(res)).error }).toEqual({ route: `${method} ${path}`, status: 401, code: "unauthorized" });
        expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
        // a body it will not read is not received either: the connection closes after the answer
        if (method !== "GET") expect({ route: `${method} ${path}`, connection: res.headers.get("connection") }).toEqual({ route: `${method} ${path}`, connection: "close" });
      }
    }
    node.close();
  }, 30_000);

  test("an address that keeps failing the check gets 429; the owner's own requests, from there too, still pass", async () => {
    const node = bootTestApp();
    const from = { "x-test-remote-address": "203.0.113.9" };
    const codes: number[] = [];
    for (let i = 0; i < 31; i++) codes.push((await node.request("/api/svc/import/linkedin", { method: "POST", headers: { ...from, "content-type": "application/json" }, body: "{}" })).status);
    expect(codes.slice(0, 30).every((c) => c === 401)).toBe(true);
    expect(codes[30]).toBe(429);
    expect((await node.request("/api/svc/import/linkedin", { method: "POST", headers: { ...from, "content-type": "application/json" }, body: "{}" })).headers.get("connection")).toBe("close");
    expect((await node.request("/api/svc/inbox", { headers: from })).status).toBe(429); // GETs count too
    expect((await asOwner(node, "/api/svc/inbox", { headers: from })).status).toBe(200);
    node.close();
  });
});
