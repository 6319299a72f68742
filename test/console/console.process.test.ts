import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { checkScreen as checkUi, HAS_CHROMIUM, launchChromium, noticeIfNoBrowser, openScreen, screenshots, seriousViolations } from "../helpers/browser.ts";
import { api, initProcessNode, signIn, startProcessNode, waitFor, type ProcessNode } from "../helpers/network-process.ts";
import { runKith, startKith } from "../helpers/process.ts";

/**
 * The owner console in real Chromium against two real `kith serve` processes over TLS (issue 17):
 * Alice uses the console, Bob is driven through his owner API. One browser and one page for the
 * whole file; the steps build on each other. Screenshots of every screen at 390 and 1280 px go to
 * .tmp/console-screenshots (README), and axe-core checks every screen in light and dark mode.
 */
noticeIfNoBrowser("test/console/console.process.test.ts");
const work = mkdtempSync(join(tmpdir(), "kith-console-"));
let alice: ProcessNode;
let bob: ProcessNode;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const problems: string[] = [];

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  [alice, bob] = await Promise.all([initProcessNode(work, "alice"), initProcessNode(work, "bob")]);
  await Promise.all([startProcessNode(alice), startProcessNode(bob), launchChromium().then((b) => void (browser = b))]);
  await signIn(bob);
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(e.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([alice, bob].map((n) => n?.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

const heading = (name: string) => page.getByRole("heading", { level: 1, name });
const open = (hash: string, title: string) => openScreen(page, alice.base, hash, title);
const checkScreen = (name: string) => checkUi(page, name);

describe.skipIf(!HAS_CHROMIUM)("the owner console in Chromium", () => {
  test("sign in with a code using only the keyboard; the session survives a reload", async () => {
    await page.goto(`${alice.base}/`); // a browser at the root lands on the console
    await heading("Sign in to your node").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console");
    expect(await page.getByText("npm run kith -- owner code").count()).toBe(1); // a checkout: the hint says how to run it here
    await checkScreen("sign-in");
    await page.keyboard.press("Tab");
    await page.keyboard.type(alice.email);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter"); // "I have a code"
    await page.getByLabel("Sign-in code").waitFor();
    const code = (await runKith(["owner", "code", "--data-dir", alice.dir])).stdout.trim().split("\n").at(-1)!;
    await page.keyboard.type(code); // the code field has the focus
    await page.keyboard.press("Enter");
    await heading("Inbox").waitFor();
    await checkScreen("inbox-empty");
    // Reloaded, the first screen's requests go out beside the identity request, not after its answer:
    // the identity is held until the inbox has been asked for (at most 5 s).
    let inboxAsked: () => void = () => {};
    const asked = new Promise<"asked">((resolve) => (inboxAsked = () => resolve("asked")));
    const onRequest = (r: { url(): string }) => new URL(r.url()).pathname === "/api/svc/inbox" && inboxAsked();
    const isIdentity = (u: URL) => u.pathname === "/api/svc";
    const held = { answer: "" };
    page.on("request", onRequest);
    await page.route(isIdentity, async (route) => {
      held.answer = await Promise.race([asked, Bun.sleep(5000).then(() => "not asked")]);
      await route.continue();
    });
    await page.reload();
    await heading("Inbox").waitFor();
    await page.locator(".topbar-agent", { hasText: "Alice" }).waitFor({ state: "attached" }); // the agent's name, once the identity arrives
    await page.unroute(isIdentity);
    page.off("request", onRequest);
    expect(held.answer).toBe("asked");
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === "kith_session")).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict", path: "/auth/session" });
  }, 30_000);

  test("a connection request from a second real node appears without a reload and is accepted", async () => {
    await open("approvals", "Approvals");
    expect((await api(bob, "/connections", { cardUrl: alice.cardUrl, context: "We met at the meetup" })).status).toBe(202);
    await page.getByText("Wants to connect").waitFor({ timeout: 15_000 });
    await page.getByText("We met at the meetup").waitFor();
    expect(await page.locator('nav a[href="#/approvals"] .nav-count').textContent()).toBe("1");
    await checkScreen("approvals");
    await page.getByRole("button", { name: "Accept" }).click();
    await waitFor("Bob sees the connection accepted", async () => (await api(bob, "/connections?status=connected")).body.items[0]);
    await page.getByText("Nothing waits for you").waitFor();
  }, 30_000);

  test("a rule created in the console fires on a message from the other node", async () => {
    await open("rules", "Automation");
    await checkScreen("rules-empty");
    await page.getByRole("button", { name: "New rule" }).click();
    await page.getByLabel("Name").fill("Coffee questions");
    await page.getByLabel("Kind of message").selectOption("ask");
    await page.getByLabel("Contains (optional)").fill("coffee");
    await page.getByLabel("Labels").fill("coffee");
    await checkScreen("rule-form");
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.getByRole("heading", { level: 2, name: "Coffee questions" }).waitFor();
    await checkScreen("rules");

    expect((await api(bob, "/intents", { to: alice.agentId, intent: "ask", payload: { question: "Coffee next week?" } })).status).toBe(202);
    await open("inbox", "Inbox");
    const item = page.getByRole("listitem").filter({ hasText: "Coffee next week?" });
    await item.getByText("coffee", { exact: true }).waitFor({ timeout: 15_000 }); // the rule's label, live
    await checkScreen("inbox");

    await open("rules", "Automation");
    await page.getByRole("link", { name: "What it did" }).click();
    await page.getByText("Labelled").waitFor({ timeout: 10_000 });
    await checkScreen("rule-runs");
  }, 45_000);

  test("a message is answered from its thread with a drafted reply", async () => {
    await open("inbox", "Inbox");
    await page.getByRole("link", { name: /Coffee next week\?/ }).click();
    await page.getByRole("heading", { level: 2, name: /Reply/ }).waitFor();
    await page.getByRole("button", { name: "Draft a reply" }).click();
    await waitFor("the draft fills the answer", async () => (await page.getByRole("textbox", { name: "Answer" }).inputValue()) !== "" || undefined, 10_000);
    await page.getByRole("button", { name: "Send reply" }).click();
    await page.locator(".bubble-out").getByText("Delivered").waitFor({ timeout: 15_000 });
    await checkScreen("thread");
    await waitFor("Bob receives the answer", async () => (await api(bob, "/inbox/search?intent=ask_response")).body.items[0]);
  }, 30_000);

  test("an intent is sent from the console and its delivery state shows", async () => {
    await open("send", "Send a message");
    await page.getByLabel("Recipient").selectOption({ label: "Bob" });
    await page.getByLabel("Question").fill("Can you share the agenda?");
    await checkScreen("send");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByRole("region", { name: "Delivery" }).getByText("Delivered").waitFor({ timeout: 15_000 });
    await checkScreen("send-delivered");
    await waitFor("Bob has it", async () => (await api(bob, "/inbox?intent=ask")).body.items.find((m: { payload: { question: string } }) => m.payload.question === "Can you share the agenda?"));
  }, 30_000);

  test("every screen: no serious or critical axe violation in light and dark mode; screenshots at 390 and 1280 px", async () => {
    await open("connections", "Connections");
    await page.getByRole("link", { name: /Bob/ }).click();
    await heading("Bob").waitFor();
    const connectionHash = new URL(page.url()).hash.slice(2);
    const screens: Array<[string, string, string]> = [
      ["threads", "Threads", "threads"],
      ["connections", "Connections", "connections"],
      [connectionHash, "Bob", "connection"],
      ["discovery", "Discovery", "discovery"],
      ["policy", "Autonomy", "policy"],
      ["profile", "Profile", "profile"],
      ["status", "Node status", "status"],
    ];
    for (const [hash, title, name] of screens) {
      await open(hash, title);
      await page.waitForLoadState("networkidle");
      await checkScreen(name);
    }
    await page.emulateMedia({ colorScheme: "dark" });
    for (const [hash, title, name] of [["inbox", "Inbox", "inbox"], ["approvals", "Approvals", "approvals"], ["rules", "Automation", "rules"], ...screens] as Array<[string, string, string]>) {
      await open(hash, title);
      await page.waitForLoadState("networkidle");
      expect({ screen: `${name} (dark)`, violations: await seriousViolations(page) }).toEqual({ screen: `${name} (dark)`, violations: [] });
    }
    await screenshots(page, "status-dark");
    await page.emulateMedia({ colorScheme: "light" });
  }, 60_000);

  test("on a phone the menu works from the keyboard, and focus lands on each new screen's heading", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open("inbox", "Inbox");
    await page.getByRole("button", { name: "Menu" }).focus();
    await page.keyboard.press("Enter");
    const link = page.getByRole("link", { name: "Connections" });
    await link.waitFor();
    await screenshots(page, "menu-open");
    await link.focus();
    await page.keyboard.press("Enter");
    await heading("Connections").waitFor();
    expect(await page.evaluate("document.activeElement?.tagName + ':' + document.activeElement?.textContent")).toBe("H1:Connections");
    expect(await page.getByRole("link", { name: "Discovery" }).isVisible()).toBe(false); // the menu closed
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 20_000);

  test("the signing key is rotated from the status screen; its confirmation ends with the screen", async () => {
    await open("status", "Node status");
    const keys = page.getByRole("region", { name: "Keys" });
    await keys.getByText("retired").waitFor({ state: "detached" });
    await keys.getByRole("button", { name: "Rotate signing key" }).click();
    await keys.getByRole("button", { name: "Rotate the signing key" }).click();
    const confirmation = page.locator(".toast");
    await page.getByText("New signing key active").waitFor();
    await keys.getByText("retired").waitFor();
    expect(await keys.getByText("active").count()).toBe(2); // the new signing key and the encryption key
    await page.getByRole("link", { name: "Inbox" }).click();
    await heading("Inbox").waitFor();
    // The toast ends in the effect that follows the screen change: wait for it (it never ends on a
    // console that keeps it), then check nothing is left.
    await confirmation.filter({ hasText: "New signing key active" }).waitFor({ state: "detached", timeout: 5_000 });
    expect(await confirmation.textContent()).toBe("");
  }, 20_000);

  test("a node with no owner yet: the sign-in page asks for a kith owner code code at once, and it works", async () => {
    const dir = join(work, "carol");
    expect((await runKith(["init", "--data-dir", dir, "--handle", "carol", "--public-url", "http://127.0.0.1:1"])).code).toBe(0);
    const carol = await startKith(["--data-dir", dir]);
    try {
      await page.goto(`${carol.url}/console`);
      await page.getByText("This node has no owner yet").waitFor();
      const code = (await runKith(["owner", "code", "--data-dir", dir, "--email", "carol@example.com"])).stdout.trim().split("\n").at(-1)!;
      await page.getByLabel("Email address").fill("carol@example.com");
      await page.getByLabel("Sign-in code").fill(code);
      await page.getByRole("button", { name: "Sign in" }).click();
      await heading("Inbox").waitFor();
    } finally {
      await carol.stop();
    }
  }, 30_000);

  test("the console asked nothing of any other origin, and the CSP blocked nothing", () => {
    const foreign = requests.filter((u) => !u.startsWith(`${alice.base}/`) && !u.startsWith("data:") && !u.startsWith("http://127.0.0.1:"));
    expect(foreign).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused to/i.test(p))).toEqual([]);
  });
});
