import { Database } from "bun:sqlite";
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPair } from "@kith/extension-sdk";
import { manifest as keepInTouchManifest } from "../../examples/keep-in-touch/manifest.ts";
import { api, innerCirclePair, signIn, startProcessNode, tfetch, waitFor, type ProcessNode } from "../helpers/network-process.ts";
import { ROOT } from "../helpers/process.ts";
import { TLS_CA_FILE } from "../helpers/tls.ts";

// Spawns two kith processes and the extension three times.
setDefaultTimeout(120_000);

/**
 * The whole path of issue 16 with real processes: the keep-in-touch example (examples/, the SDK
 * only) is submitted to Alice's marketplace, reviewed, installed from it with a narrower grant
 * than it asks for, and run as its own process: Bob (inner circle, silent for a month) gets an
 * `ask` held for Alice's approval; she approves; it is delivered to Bob's node; the next run sees
 * the outcome on the feed and verifies its audit chain; after the uninstall a run gets 401.
 */
const work = mkdtempSync(join(tmpdir(), "kith-kit-"));
const nodes: ProcessNode[] = [];
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

async function runExtension(env: Record<string, string>): Promise<{ code: number; lines: Array<Record<string, any>>; stderr: string }> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "examples/keep-in-touch/index.ts"), "run"], { cwd: join(ROOT, "examples/keep-in-touch"), env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, lines: stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)), stderr };
}

test("submit → review → install from the marketplace (narrower grant) → run → owner approval → delivery → uninstall → 401", async () => {
  // Alice and Bob connect; Bob is in Alice's inner circle.
  const { alice, bob, contact } = await innerCirclePair(work, nodes);

  // A month of silence: Alice's node is stopped, the relationship's dates moved 30 days back, and
  // the restarted node rescores it (at start): over four inner cadences without a word is dormant.
  await alice.running!.stop("SIGTERM");
  const db = new Database(join(alice.dir, "kith.db"));
  const month = 30 * 86_400_000;
  db.run("UPDATE connections SET last_message_at = last_message_at - ?, connected_at = connected_at - ?, created_at = created_at - ? WHERE id = ?", [month, month, month, contact.id]);
  db.close();
  await startProcessNode(alice);
  await signIn(alice);
  await waitFor("Bob is slipping", async () => ["at_risk", "dormant"].includes((await api(alice, `/connections/${contact.id}`)).body.health));

  // The publisher's key and manifest; Alice's owner submits it and reviews it on her node.
  const key = await generateKeyPair();
  const manifest = keepInTouchManifest(key.publicKeyMultibase);
  const submit = await tfetch(`${alice.base}/marketplace/submit`, { method: "POST", headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" }, body: JSON.stringify({ manifest }) });
  expect([submit.status, ((await submit.json()) as any).reviewState]).toEqual([201, "submitted"]);
  expect((await api(alice, "/marketplace/extensions/com.example.keepintouch/versions/1.0.0/review", { decision: "approve" })).body.reviewState).toBe("approved");
  const details = (await (await tfetch(`${alice.base}/marketplace/extensions/com.example.keepintouch`)).json()) as any;
  expect(details.permissionsSummary.map((p: any) => p.name)).toEqual(["connections:list", "layers:read", "events:subscribe", "intents:send"]);

  // Installed with less than it asks for: two of three layers, the transactional tier of social.
  const grant = { permissions: ["connections:list", "layers:read", "events:subscribe", "intents:send"], layers: ["inner", "active"], maxAutonomyTier: "transactional" };
  const installed = await api(alice, "/extensions/install", { source: "marketplace", extensionId: "com.example.keepintouch", manifestHash: details.manifestHash, grant });
  expect(installed.status).toBe(201);
  const state = join(work, "kit-state");
  const env = { KITH_URL: alice.base, KITH_INSTALLATION_ID: installed.body.installation.installationId, KEEPINTOUCH_KEY: key.privateKey, KITH_TOKEN: installed.body.delegationToken, KEEPINTOUCH_STATE: state, KITH_CA_FILE: TLS_CA_FILE };

  // Run 1: the ask waits for Alice (social is above the granted tier); the audit chain verifies.
  const first = await runExtension(env);
  expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: "" });
  expect(first.lines[0]).toMatchObject({ step: "identity", layers: ["inner", "active"], maxAutonomyTier: "transactional" });
  const nudge = first.lines.find((l) => l.step === "nudge");
  expect(nudge).toMatchObject({ contactId: contact.id, intent: "ask", status: "pending_approval" });
  expect(first.lines.at(-1)).toMatchObject({ step: "audit", ok: true });

  // Alice approves; the ask is delivered to Bob's node.
  const held = await waitFor("the held ask", async () => (await api(alice, "/pending")).body.items.find((p: any) => JSON.stringify(p).includes("coffee or a call")));
  expect((await api(alice, `/pending/${held.id}`, { decision: "approve" })).status).toBe(200);
  const delivered = await waitFor("the ask at Bob", async () => (await api(bob, "/inbox/search?intent=ask")).body.items[0]);
  expect(delivered).toMatchObject({ from: alice.agentId, payload: { question: "It has been a while — coffee or a call in the next weeks?" } });

  // Run 2: the outcome arrives on the feed from the saved cursor; nobody is nudged twice.
  const second = await runExtension(env);
  expect(second.code).toBe(0);
  const kinds = second.lines.filter((l) => l.step === "event").map((l) => l.kind);
  expect(kinds).toContain("approval.resolved");
  expect(second.lines.some((l) => l.step === "nudge")).toBe(false);
  expect(second.lines.at(-1)).toMatchObject({ step: "audit", ok: true });

  // Uninstalled: the next run is refused with 401 installation_inactive.
  expect((await api(alice, `/extensions/${installed.body.installation.installationId}`, undefined, "DELETE")).status).toBe(200);
  const third = await runExtension(env);
  expect(third.code).toBe(3);
  expect(third.lines.at(-1)).toEqual({ step: "refused", status: 401, code: "installation_inactive" });
}, 120_000);
