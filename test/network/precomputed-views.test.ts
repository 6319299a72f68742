import { afterEach, describe, expect, test } from "bun:test";
import { networkState } from "../../src/domain/network/internal/state.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeManifest, extRequest, installAcme } from "../helpers/extensions.ts";
import { withHidden, writeNetwork } from "../helpers/network-fixture.ts";
import { asOwner } from "../helpers/owner.ts";

const PERMS = ["layers:read", "graph:read:clusters:summary", "graph:read:clusters:members", "graph:read:bridges"];
const GRANT = ["active", "sympathy", "recognition", "known"] as const;

let node: TestNode;
afterEach(() => node?.close());

describe("the recompute hands over each installed audience's view", () => {
  for (const inline of [false, true]) {
    test(`the first read of a grant serves the view the ${inline ? "in-process runner" : "Worker"} built, the same as one built on read`, async () => {
      node = bootTestApp({ network: { inline } });
      writeNetwork(node.db, withHidden().net, node.clock.now());
      const manifest = acmeManifest({ id: "com.acme.views", permissions: PERMS.map((name) => ({ name, required: false, reason: `To use ${name}` })), layers: { requested: [...GRANT], reason: "Four of the circles" } });
      const a = await installAcme(node, { manifest, grant: { permissions: PERMS, layers: [...GRANT], maxAutonomyTier: "transactional" } });
      expect((await asOwner(node, "/api/svc/network/clusters")).status).toBe(200); // the first analysis, with a's audience

      const state = networkState(node.db);
      const keys = () => [...state.views.keys()].map((k) => k.split("|")[2]);
      expect(keys()).toContain(GRANT.join(","));
      const read = async () => Promise.all(["/ext/v1/clusters", "/ext/v1/bridges", "/ext/v1/decaying"].map(async (p) => (await extRequest(node, a.token, "GET", p)).json()));
      const served = await read();

      state.views.clear();
      state.bodies.clear();
      expect(await read()).toEqual(served);
      expect(keys()).toContain(GRANT.join(","));
    });
  }
});
