import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { ROOT } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());

/**
 * docs/extensions.md §5 is where a client learns which permission opens which endpoint: every
 * /ext/v1 operation of the OpenAPI document, and every permission of its scope table, must be
 * there with the same permission and scope (an independent client found graph:* and agent.chat
 * missing).
 */
test("docs §5's permission table names every /ext/v1 operation and every permission, with the node's scope", async () => {
  node = bootTestApp();
  const doc = (await (await node.request("/.well-known/openapi.json")).json()) as { paths: Record<string, Record<string, any>>; "x-svc": { extensionScopes: Record<string, { permissions: string[] }> } };
  const guide = readFileSync(join(ROOT, "docs/extensions.md"), "utf8");
  const section = guide.slice(guide.indexOf("## 5."), guide.indexOf("## 6."));
  const rows = new Map<string, { scope: string; endpoints: string }>();
  for (const m of section.matchAll(/^\| (`[^`]+`|\(every installation\)) \| `([^`]+)` \| (.+) \|$/gm)) rows.set(m[1]!.replace(/`/g, ""), { scope: m[2]!, endpoints: m[3]! });

  const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith("/ext/v1")).flatMap(([p, o]) => Object.entries(o).map(([method, op]) => ({ method: method.toUpperCase(), path: p.replace(/\{(\w+)\}/g, ":$1"), op })));
  expect(ops.length).toBeGreaterThan(10);
  for (const { method, path, op } of ops) {
    const permission = (op["x-svc"].permission as string | null) ?? "(every installation)";
    const row = rows.get(permission);
    expect({ op: `${method} ${path}`, permission, scope: row?.scope, documented: row?.endpoints.includes(`\`${method} ${path}\``) }).toEqual({ op: `${method} ${path}`, permission, scope: op["x-svc"].extensionScopes[0], documented: true });
  }
  for (const [scope, { permissions }] of Object.entries(doc["x-svc"].extensionScopes)) {
    for (const permission of permissions) expect({ permission, scope: rows.get(permission)?.scope }).toEqual({ permission, scope });
  }
});
