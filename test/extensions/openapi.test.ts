import { afterEach, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";

let node: TestNode;
afterEach(() => node?.close());

test("every /ext/v1 operation names its scope and permission under x-svc, and the scope table lists that permission", async () => {
  node = bootTestApp();
  const doc = (await (await node.request("/.well-known/openapi.json")).json()) as { paths: Record<string, Record<string, any>>; "x-svc": { extensionScopes: Record<string, { permissions: string[] }> }; components: { securitySchemes: Record<string, unknown> } };
  const scopes = doc["x-svc"].extensionScopes;
  const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith("/ext/v1")).flatMap(([p, o]) => Object.entries(o).map(([m, op]) => [`${m} ${p}`, op] as const));
  expect(ops.length).toBe(15); // 10 of the runtime, 5 of the relationship intelligence (ext-network.routes.ts)
  for (const [name, op] of ops) {
    const [scope] = op["x-svc"].extensionScopes as string[];
    expect({ name, known: scope! in scopes }).toEqual({ name, known: true });
    if (op["x-svc"].permission !== null) expect({ name, listed: scopes[scope!]!.permissions.includes(op["x-svc"].permission) }).toEqual({ name, listed: true });
    if (name !== "post /ext/v1/token") expect(op.security).toEqual([{ extensionDelegation: [] }]);
  }
  expect(doc.components.securitySchemes.extensionDelegation).toBeDefined();
});
