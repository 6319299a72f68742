import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { closeDatabase, openDatabase } from "../../src/db/client.ts";
import { checkScreen as checkUi, HAS_CHROMIUM, launchChromium, noticeIfNoBrowser, openScreen } from "../helpers/browser.ts";
import { acmeKey, acmeManifest, manifestHash, signExtensionRequest } from "../helpers/extensions.ts";
import { plantedNetwork, writeNetwork } from "../helpers/network-fixture.ts";
import { api, initProcessNode, signIn, startProcessNode, tfetch, waitFor, type ProcessNode } from "../helpers/network-process.ts";
import { runKith } from "../helpers/process.ts";

/**
 * The console's extension, marketplace and network screens in real Chromium against a real
 * `kith serve` over TLS (issue 17, the screens that slot in once issues 14–16 landed). The node's
 * own marketplace holds the acme extension; its database holds the planted contact network of the
 * graph tests. One browser, one page; the steps build on each other.
 */
noticeIfNoBrowser("test/console/extensions.process.test.ts");
const work = mkdtempSync(join(tmpdir(), "kith-console-ext-"));
let alice: ProcessNode;
const nodes: ProcessNode[] = [];
let browser: Browser;
let page: Page;
const problems: string[] = [];
const manifest = acmeManifest();

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  alice = await initProcessNode(work, "alice");
  const db = openDatabase(join(alice.dir, "kith.db"));
  writeNetwork(db, plantedNetwork().net, Date.now());
  closeDatabase(db);
  await Promise.all([startProcessNode(alice), launchChromium().then((b) => void (browser = b))]);
  await signIn(alice);
  for (const m of [manifest, acmeManifest({ id: "com.acme.spam", name: "Spam blaster", version: "0.1.0" })]) {
    const res = await tfetch(`${alice.base}/marketplace/submit`, { method: "POST", headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" }, body: JSON.stringify({ manifest: m }) });
    expect(res.status).toBe(201);
  }
  page = await (await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } })).newPage();
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(`${alice.base}/console`);
  await page.getByLabel("Email address").fill(alice.email);
  await page.getByRole("button", { name: "I have a code" }).click();
  const code = (await runKith(["owner", "code", "--data-dir", alice.dir])).stdout.trim().split("\n").at(-1)!;
  await page.getByLabel("Sign-in code").fill(code);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([alice, ...nodes].map((n) => n?.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

const heading = (name: string) => page.getByRole("heading", { level: 1, name });
const open = (hash: string, title: string) => openScreen(page, alice.base, hash, title);
/** axe (light and dark), 390 px, screenshots (test/helpers/browser.ts). */
const checkScreen = (name: string) => checkUi(page, name, { dark: true });

describe.skipIf(!HAS_CHROMIUM)("extensions, the marketplace and the network in the console", () => {
  test("the review queue: one submission approved, another rejected with a reason", async () => {
    await open("extensions", "Extensions");
    await page.getByText("No extensions yet").waitFor();
    await checkScreen("extensions-empty");
    await open("marketplace", "Marketplace");
    const queue = page.getByRole("list", { name: "Waiting for review" });
    await queue.getByText("Spam blaster 0.1.0").waitFor();
    await checkScreen("marketplace-queue");
    await page.getByLabel("Reason to reject com.acme.spam 0.1.0").fill("It sends too much");
    await queue.getByRole("listitem").filter({ hasText: "Spam blaster" }).getByRole("button", { name: "Reject" }).click();
    await queue.getByText("Spam blaster").waitFor({ state: "detached" });
    await queue.getByRole("listitem").filter({ hasText: "Keep in touch" }).getByRole("button", { name: "Approve" }).click();
    await page.getByText("Nothing to review").waitFor();
    const states = (await api(alice, "/marketplace/submissions")).body.submissions as Array<{ extensionId: string; reviewState: string; reasons: Array<{ message: string }> }>;
    expect(states.map((s) => [s.extensionId, s.reviewState, s.reasons.map((r) => r.message)]).sort()).toEqual([["com.acme.keepintouch", "approved", []], ["com.acme.spam", "rejected", ["It sends too much"]]]);
  }, 30_000);

  test("found by search, installed through the consent screen with a narrowed grant", async () => {
    await page.getByLabel("Search the marketplace").fill("keep");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("list", { name: "Search results" }).getByRole("link", { name: /Keep in touch/ }).click();
    await heading("Install Keep in touch?").waitFor();
    // What the manifest asks, in words, with its reasons, the circles, the tier and the pinned hash.
    await page.getByText("Send messages for you (tier-limited)").waitFor();
    await page.getByText("“To ping contacts you have not talked to”").waitFor();
    await page.getByText("“Only your closer circles matter here”").waitFor();
    await page.getByText(manifestHash(manifest)).waitFor();
    expect(await page.getByRole("checkbox", { name: /See your contacts in the chosen circles/ }).isDisabled()).toBe(true); // required
    expect(await page.getByRole("radio").count()).toBe(2); // up to the manifest's tier (social)
    await checkScreen("consent");
    await page.getByRole("checkbox", { name: /Send messages for you/ }).uncheck();
    await page.getByRole("checkbox", { name: "Sympathy" }).uncheck();
    await page.getByRole("radio", { name: /Transactional/ }).check();
    await page.getByRole("button", { name: "Install" }).click();
    await page.getByLabel("Delegation token").waitFor();
    const [installed] = (await api(alice, "/extensions")).body.installations;
    expect(installed).toMatchObject({ extensionId: "com.acme.keepintouch", status: "active", source: "marketplace", manifestHash: manifestHash(manifest), layers: ["inner", "active"], maxAutonomyTier: "transactional" });
    expect(installed.permissions.sort()).toEqual(["connections:list", "events:subscribe", "layers:read", "profile:read"]);
  }, 30_000);

  test("an installed extension: its grant narrowed again, rated, then uninstalled", async () => {
    await open("extensions", "Extensions");
    await page.getByRole("link", { name: /Keep in touch/ }).click();
    await heading("Keep in touch").waitFor();
    await page.getByRole("region", { name: "Access" }).getByText("Active", { exact: true }).waitFor();
    await checkScreen("extension");
    await page.getByRole("checkbox", { name: /Read your public profile/ }).uncheck();
    await page.getByRole("button", { name: "Save the grant" }).click();
    await page.getByText("A new delegation token was issued").waitFor();
    const [one] = (await api(alice, "/extensions")).body.installations;
    expect(one.permissions.sort()).toEqual(["connections:list", "events:subscribe", "layers:read"]);

    await page.getByLabel("Rating").selectOption("4");
    await page.getByLabel("Comment (optional)").fill("Gentle reminders");
    await page.getByRole("button", { name: "Send rating" }).click();
    await page.getByText("your rating is in the marketplace").waitFor();
    const details = (await (await tfetch(`${alice.base}/marketplace/extensions/com.acme.keepintouch`)).json()) as { reviewStats: unknown };
    expect(details.reviewStats).toMatchObject({ count: 1, average: 4 });

    // A new version asking for more waits for the owner; accepted from the console.
    const next = acmeManifest({ version: "1.1.0", permissions: [...(manifest.permissions as object[]), { name: "graph:read:bridges", required: false, reason: "To warn you about fading bridges" }] });
    expect((await api(alice, `/extensions/${one.installationId}/update`, { source: "inline", manifest: next, manifestHash: manifestHash(next) })).body.status).toBe("pending_update");
    await page.getByRole("heading", { level: 2, name: "An update asks for more" }).waitFor();
    await page.getByRole("button", { name: "Accept the update" }).click();
    await page.getByRole("heading", { level: 2, name: "An update asks for more" }).waitFor({ state: "detached" });
    expect((await api(alice, `/extensions/${one.installationId}`)).body).toMatchObject({ status: "active", version: "1.1.0", pendingUpdate: null });

    await page.getByRole("button", { name: "Uninstall" }).click();
    await page.getByRole("button", { name: "Uninstall it" }).click();
    await waitFor("uninstalled", async () => (await api(alice, "/extensions")).body.installations[0].status === "uninstalled");
    await page.getByRole("region", { name: "Access" }).getByText("Uninstalled", { exact: true }).waitFor();
  }, 30_000);

  test("an intent an extension sends above its tier waits in Approvals, naming the extension", async () => {
    const bob = await initProcessNode(work, "bob");
    nodes.push(bob);
    await startProcessNode(bob);
    await signIn(bob);
    expect((await api(alice, "/connections", { cardUrl: bob.cardUrl, context: "Met at the meetup" })).status).toBe(202);
    const pending = await waitFor("Bob's pending request", async () => (await api(bob, "/pending")).body.items[0]);
    expect((await api(bob, `/pending/${pending.id}`, { decision: "approve" })).status).toBe(200);
    const contact = await waitFor("Alice sees Bob connected", async () => (await api(alice, "/connections?status=connected")).body.items[0]);
    expect((await api(alice, `/connections/${contact.id}`, { layer: "inner" }, "PATCH")).status).toBe(200);
    const installed = await api(alice, "/extensions/install", { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: { permissions: ["connections:list", "intents:send"], layers: ["inner"], maxAutonomyTier: "transactional" } });
    expect(installed.status).toBe(201);
    const body = JSON.stringify({ to: contact.id, intent: "ask", payload: { question: "Lunch on Friday?" } });
    const sent = await tfetch(`${alice.base}/ext/v1/intents`, { method: "POST", headers: { authorization: `Bearer ${installed.body.delegationToken}`, "content-type": "application/json", ...signExtensionRequest("POST", "/ext/v1/intents", body) }, body });
    expect(sent.status).toBe(202);
    await open("approvals", "Approvals");
    const card = page.getByRole("listitem").filter({ hasText: "Lunch on Friday?" });
    await card.getByText("The extension com.acme.keepintouch wants to send").waitFor();
    await checkScreen("approvals-extension");

    // The call it made through the extension API is in its audit trail, newest first, the chain verified.
    const installationId = installed.body.installation.installationId;
    await open(`extensions/${installationId}`, "Keep in touch");
    const trail = page.getByRole("table", { name: /Everything this extension did, newest first/ });
    const rows = trail.locator("tbody tr");
    await rows.first().getByText("Waiting for your approval").waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).textContent()).toContain("Sent a request (POST /ext/v1/intents)");
    expect(await rows.nth(2).textContent()).toContain("Access granted by you");
    await page.getByText("Chain verified", { exact: true }).waitFor();
    await checkScreen("extension-audit");
    expect((await api(alice, `/extensions/${installationId}`, undefined, "DELETE")).status).toBe(200);
  }, 40_000);

  test("installed from a URL through the same consent screen (the node fetches and shows the manifest)", async () => {
    const { testTls } = await import("../helpers/tls.ts");
    const other = acmeManifest({ id: "com.acme.birthdays", name: "Birthdays", version: "2.0.0" });
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), fetch: () => Response.json(other) });
    try {
      await open("extensions", "Extensions");
      await page.getByLabel("Manifest URL").fill(`https://localhost:${server.port}/birthdays.json`);
      await page.getByRole("button", { name: "Review" }).click();
      await heading("Install Birthdays?").waitFor();
      await page.getByText(manifestHash(other)).waitFor();
      await page.getByText("“To know how close each contact is”").waitFor();
      await checkScreen("consent-url");
      await page.getByRole("checkbox", { name: "Inner circle" }).uncheck();
      await page.getByRole("button", { name: "Install" }).click();
      await page.getByLabel("Delegation token").waitFor();
      const installed = (await api(alice, "/extensions")).body.installations.find((i: { extensionId: string }) => i.extensionId === "com.acme.birthdays");
      expect(installed).toMatchObject({ source: "url", status: "active", manifestHash: manifestHash(other), layers: ["active", "sympathy"], maxAutonomyTier: "social" });
    } finally {
      server.stop(true);
    }
  }, 30_000);

  test("the network: the planted graph drawn with its clusters coloured and connectors marked, a table alternative, health and decaying contacts", async () => {
    await open("network", "Network");
    const svg = page.getByRole("img", { name: /Your contact graph/ });
    await svg.waitFor({ timeout: 20_000 }); // the first analysis may still be running: the screen polls
    // The planted 120 plus Bob (connected above): one colour per planted community, every planted connector ringed.
    expect(await svg.locator("circle").count()).toBe(121);
    const planted = svg.locator('circle[data-id^="p0"]');
    expect(await planted.count()).toBe(120);
    const colours = await planted.evaluateAll((cs) => [...new Set(cs.map((c) => c.getAttribute("class")!.match(/\bc(\d)\b/)![1]))].length);
    expect(colours).toBe(6);
    const { sole, cuts } = plantedNetwork();
    const ringed = await svg.locator("circle.node-connector, circle.node-risk").evaluateAll((cs) => cs.map((c) => c.getAttribute("data-id")).sort());
    expect(ringed).toEqual([...new Set([...sole.keys(), ...cuts])].sort());
    const groups = page.getByRole("table", { name: "Groups", exact: true });
    for (const k of [0, 1, 2, 3, 4, 5]) await groups.getByRole("cell", { name: `Company ${k}`, exact: true }).waitFor();
    const connectors = page.getByRole("table", { name: "Who holds your groups together" });
    expect(await connectors.getByRole("row").count()).toBe(ringed.length + 1);
    await page.getByRole("table", { name: "Each circle against its usual size" }).getByText("Inner circle").waitFor();
    await page.getByRole("list", { name: "Decaying contacts" }).getByRole("listitem").first().waitFor();
    await checkScreen("network");
    await connectors.getByRole("link").first().click(); // a connector opens its connection
    await page.getByRole("heading", { level: 1, name: /^Contact p0/ }).waitFor();
  }, 40_000);

  test("mailboxes: none used by this node; one granted to another agent, then revoked", async () => {
    await open("mailboxes", "Mailboxes");
    await page.getByText("it uses no mailbox").waitFor();
    await page.getByText("No mailboxes granted").waitFor();
    await checkScreen("mailboxes-empty");
    const friend = `svc:${acmeKey(0).multibase}`;
    await page.getByLabel("Agent id").fill(friend);
    await page.getByLabel("Kept for (hours)").fill("48");
    await page.getByRole("button", { name: "Grant a mailbox" }).click();
    const row = page.getByRole("list", { name: "Mailboxes granted" }).getByRole("listitem");
    await row.getByText("0 waiting").waitFor();
    expect((await api(alice, "/mailboxes")).body.items).toMatchObject([{ agentId: friend, status: "active", retentionHours: 48, maxMessages: 1000 }]);
    await checkScreen("mailboxes");
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Revoke and delete its messages" }).click();
    await row.getByText("Revoked", { exact: true }).waitFor();
    expect((await api(alice, "/mailboxes")).body.items[0].status).toBe("revoked");
  }, 30_000);

  test("nothing the console did broke its CSP or threw", () => {
    expect(problems.filter((p) => /Content Security Policy|Refused to|TypeError|ReferenceError/i.test(p))).toEqual([]);
  });
});
