import { expect, test } from "bun:test";
import { sucrose } from "elysia/sucrose";
import { bootTestApp } from "../helpers/boot.ts";

// Elysia reads each hook's source to decide what the compiled handler of every route prepares
// (sucrose): a global hook that takes the context whole, or hands it to a function, makes every
// route parse its cookies, copy its headers into an object and parse its query before anything
// runs (~a third of an unauthenticated extension request's CPU, docs/decisions/inbound-performance.md).
// The node reads cookies and headers from `request` itself; routes that need query or body
// declare them and still get them.

test("the hooks every route gets ask Elysia for nothing but the request, its route and set", () => {
  const node = bootTestApp();
  try {
    const event = (node.app as unknown as { event: Record<string, Array<{ fn: unknown; scope?: string }> | undefined> }).event;
    const hooks = Object.fromEntries(Object.entries(event).map(([kind, list]) => [kind, (list ?? []).filter((h) => kind === "request" || h.scope === "global")]));
    expect(Object.values(hooks).flat().length).toBeGreaterThanOrEqual(5); // request log, gate (request, parse, transform), errors
    const inferred = sucrose(hooks as never);
    expect({ cookie: inferred.cookie, headers: inferred.headers, query: inferred.query, body: inferred.body, server: inferred.server }).toEqual({
      cookie: false,
      headers: false,
      query: false,
      body: false,
      server: false,
    });
    expect(inferred.route).toBe(true); // the gate and the request log read the route template
  } finally {
    node.close();
  }
});

test("a route that reads nothing but the request answers without Elysia's cookie jar or header copy", async () => {
  const node = bootTestApp();
  try {
    // A malformed cookie and a query are ignored where nothing reads them (as before: never parsed into an error).
    const res = await node.app.handle(new Request("http://localhost/health?x=%zz", { headers: { cookie: "a=%zz; =; b" } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{8,64}$/);
  } finally {
    node.close();
  }
});
