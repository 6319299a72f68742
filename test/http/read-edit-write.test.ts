import { afterEach, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/**
 * A full replace (PUT) takes back what the GET of the same path answered, read-only members
 * included (they are ignored): read, edit, write must not fail on `updatedAt`. Walks every route:
 * a new GET/PUT pair is covered without a line here.
 */
let node: TestNode;
afterEach(() => node?.close());

test("every PUT accepts the answer of the GET on the same path, and an edit of it", async () => {
  node = bootTestApp();
  const routes = node.app.routes.map((r) => `${r.method} ${r.path}`);
  const pairs = routes.filter((r) => r.startsWith("PUT ") && !r.includes(":") && routes.includes(`GET ${r.slice(4)}`)).map((r) => r.slice(4));
  expect(pairs).toContain("/api/svc/policy");
  for (const path of pairs) {
    // Twice: the defaults (updatedAt null), then a stored value (updatedAt a time).
    for (let round = 0; round < 2; round++) {
      const read = await json(await asOwner(node, path));
      const written = await asOwner(node, path, { method: "PUT", body: read });
      expect({ path, round, status: written.status }).toEqual({ path, round, status: 200 });
      node.clock.advance(1000);
    }
  }
  const policy = await json(await asOwner(node, "/api/svc/policy"));
  const edited = await json(await asOwner(node, "/api/svc/policy", { method: "PUT", body: { ...policy, maxInboundRate: 7, updatedAt: "1999-01-01T00:00:00.000Z" } }));
  expect(edited.maxInboundRate).toBe(7);
  expect(edited.updatedAt).toBe(new Date(node.clock.now()).toISOString()); // set by the node, not taken from the body
});
