import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { api, innerCirclePair, waitFor, type ProcessNode } from "../helpers/network-process.ts";
import { ROOT } from "../helpers/process.ts";
import { TLS_CA_FILE } from "../helpers/tls.ts";
import { acmeManifest, manifestHash as hashOf } from "../helpers/extensions.ts";

setDefaultTimeout(60_000);

/**
 * The whole extension API end to end, across three processes: two `kith serve` nodes and an
 * extension (test/fixtures/extension/keep-in-touch.mjs) that holds its own Ed25519 key and signs
 * its own requests with code written from docs/extensions.md, importing nothing of the node.
 */
const work = mkdtempSync(join(tmpdir(), "kith-ext-"));
const nodes: ProcessNode[] = [];
let extension: ReturnType<typeof Bun.spawn> | null = null;
afterAll(async () => {
  extension?.kill();
  await Promise.all(nodes.map((n) => n.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

/** One JSON command per line to the extension process, one JSON answer back. */
function extensionProcess() {
  const proc = Bun.spawn([process.execPath, resolve(ROOT, "test/fixtures/extension/keep-in-touch.mjs")], { stdin: "pipe", stdout: "pipe", stderr: "inherit", env: { ...process.env, EXT_CA_FILE: TLS_CA_FILE } });
  extension = proc;
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let buffered = "";
  return async (cmd: Record<string, unknown>): Promise<any> => {
    (proc.stdin as import("bun").FileSink).write(JSON.stringify(cmd) + "\n");
    (proc.stdin as import("bun").FileSink).flush();
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the extension process exited");
      buffered += new TextDecoder().decode(value);
    }
    const line = buffered.slice(0, buffered.indexOf("\n"));
    buffered = buffered.slice(line.length + 1);
    return JSON.parse(line);
  };
}

test("install → renew → identity → 403 → 404 → held intent approved and delivered → feed → narrowing → audit chain → uninstall → 401", async () => {
  // Alice and Bob connect; Bob is in Alice's inner circle.
  const { alice: a, bob: b, contact: bob } = await innerCirclePair(work, nodes);

  // The extension process makes its key; the owner installs its manifest inline.
  const ext = extensionProcess();
  const { publicKeyMultibase } = await ext({ op: "key" });
  const manifest = acmeManifest({
    keys: [{ keyId: "k1", algorithm: "Ed25519", publicKeyMultibase, status: "active" }],
    layers: { requested: ["inner", "active"], reason: "Only your closest circles" },
    events: undefined,
  });
  const manifestHash = hashOf(manifest);
  const installed = await api(a, "/extensions/install", {
    source: "inline",
    manifest,
    manifestHash,
    grant: { permissions: ["connections:list", "layers:read", "events:subscribe", "intents:send"], layers: ["inner", "active"], maxAutonomyTier: "transactional" },
  });
  expect(installed.status).toBe(201);
  const { installationId } = installed.body.installation;
  const configured = await ext({ op: "configure", base: a.base, installationId, token: installed.body.delegationToken });
  expect(configured.tokenPayload).toMatchObject({ installationId, ownerTulpaId: a.agentId, publicKeyMultibase, maxAutonomyTier: "transactional" });

  // Renewal with its own key; identity with the new token.
  expect((await ext({ op: "renew" })).status).toBe(200);
  const identity = await ext({ op: "call", method: "GET", target: "/ext/v1/identity" });
  expect([identity.status, identity.body.agentId, identity.body.installationId]).toEqual([200, a.agentId, installationId]);
  const since = (await ext({ op: "call", method: "GET", target: "/ext/v1/events" })).body.nextSince;

  // A permission not granted: 403 naming it.
  const profile = await ext({ op: "call", method: "GET", target: "/ext/v1/profile" });
  expect([profile.status, profile.body.error, profile.body.required]).toEqual([403, "permission_missing", "profile:read"]);

  // Bob moved outside the grant: 404, as if he did not exist; back inside: 200.
  expect((await api(a, `/connections/${bob.id}`, { layer: "sympathy" }, "PATCH")).status).toBe(200);
  expect((await ext({ op: "call", method: "GET", target: `/ext/v1/connections/${bob.id}` })).status).toBe(404);
  expect((await api(a, `/connections/${bob.id}`, { layer: "inner" }, "PATCH")).status).toBe(200);
  expect((await ext({ op: "call", method: "GET", target: `/ext/v1/connections/${bob.id}` })).status).toBe(200);

  // An ask (social) is above the granted tier (transactional): held; the owner approves; Bob gets it.
  const sent = await ext({ op: "call", method: "POST", target: "/ext/v1/intents", body: { to: bob.id, intent: "ask", payload: { question: "Coffee next week?" } } });
  expect([sent.status, sent.body.status]).toEqual([202, "pending_approval"]);
  expect((await api(a, `/pending/${sent.body.approvalId}`, { decision: "approve" })).status).toBe(200);
  const delivered = await waitFor("the ask at Bob", async () => (await api(b, "/inbox?intent=ask")).body.items[0]);
  expect(delivered.id).toBe(sent.body.intentId);

  // The feed tells the extension: entered/left scope, its intent's states, the approval.
  const feed = await waitFor("the delivery on the feed", async () => {
    const page = await ext({ op: "call", method: "GET", target: `/ext/v1/events?since=${since}` });
    return page.body.events.some((e: { kind: string; data: { status?: string } }) => e.data.status === "delivered") ? page.body.events : undefined;
  });
  const kinds = feed.map((e: { kind: string }) => e.kind).filter((k: string) => k !== "relationship.health_changed"); // bands move with the layer
  expect(kinds).toEqual(["connection.left_scope", "connection.entered_scope", "intent.status_changed", "approval.resolved", "intent.status_changed"]);

  // The owner narrows the grant: the next call is token_revoked; renewed, layers:read is gone.
  expect((await api(a, `/extensions/${installationId}/permissions`, { permissions: ["connections:list", "events:subscribe", "intents:send"], layers: ["inner"] }, "PUT")).status).toBe(200);
  const narrowed = await ext({ op: "call", method: "GET", target: "/ext/v1/layers", autoRenew: true });
  expect([narrowed.renewedAfter, narrowed.status, narrowed.body.required]).toEqual(["token_revoked", 403, "layers:read"]);

  // The audit chain verifies under the agent's key, in the extension's own code.
  const audit = await ext({ op: "verifyAudit" });
  expect(audit.ok).toBe(true);
  expect(audit.count).toBeGreaterThan(10);

  // Uninstalled: 401 installation_inactive.
  expect((await api(a, `/extensions/${installationId}`, undefined, "DELETE")).status).toBe(200);
  const after = await ext({ op: "call", method: "GET", target: "/ext/v1/identity" });
  expect([after.status, after.body.error]).toEqual([401, "installation_inactive"]);
}, 120_000);
