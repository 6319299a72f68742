import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, runKith, startKith, type RunningNode } from "../helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-owner-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const dir = () => join(work, `d${++n}`);

const post = (node: RunningNode, path: string, body: unknown, token?: string) =>
  fetch(`${node.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

/** The code is the last line of stdout, alone. */
function lastLineCode(stdout: string): string {
  const lines = stdout.replace(/\n$/, "").split("\n");
  expect(lines.at(-1)).toMatch(/^\d{12}$/); // 12 digits: this code has no try cap (docs/decisions/owner-sign-in.md)
  return lines.at(-1)!;
}

describe("kith owner code", () => {
  test("issues a code while the node runs; the running node accepts it and the token opens GET /api/svc", async () => {
    const d = dir();
    expect((await runKith(["init", "--data-dir", d, "--handle", "alice", "--public-url", "https://alice.example.com", "--owner-email", "alice@example.com"])).code).toBe(0);
    expect(statSync(join(d, "auth-secret")).mode & 0o777).toBe(0o600);
    const node = await startKith(["--data-dir", d]);
    try {
      expect(node.stderr()).toContain("alice@example.com: POST /auth/email/send");
      const r = await runKith(["owner", "code", "--data-dir", d]);
      expect(r.code).toBe(0);
      const code = lastLineCode(r.stdout);
      expect(r.stderr).toContain("alice@example.com");
      const wrongEmail = await post(node, "/auth/email/verify", { email: "mallory@example.com", code });
      expect(wrongEmail.status).toBe(400);
      const res = await post(node, "/auth/email/verify", { email: "alice@example.com", code });
      expect(res.status).toBe(200);
      const { accessToken } = await json(res);
      const me = await fetch(`${node.url}/api/svc`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(me.status).toBe(200);
      expect((await json(me)).handle).toBe("alice");
      expect((await post(node, "/auth/email/verify", { email: "alice@example.com", code })).status).toBe(400);
    } finally {
      expect(await node.stop()).toBe(0);
    }
    const secret = readFileSync(join(d, "auth-secret"), "utf8").trim();
    expect(node.stdout() + node.stderr()).not.toContain(secret);
  });

  test("zero-config node: the banner says how; --email stores the owner email, the running node picks it up", async () => {
    const d = dir();
    const node = await startKith(["--data-dir", d]);
    try {
      const banner = node.stderr();
      // run from a checkout, where neither kith nor bun is on PATH: the banner says what works there
      expect(banner).toContain(`no owner email yet: run \`npm run kith -- owner code --data-dir ${d} --email you@example.com\``);
      expect(await json(await fetch(`${node.url}/auth/providers`))).toEqual({ providers: [] });
      const r = await runKith(["owner", "code", "--data-dir", d, "--email", "Owner@Example.com"]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("owner email set to owner@example.com");
      const code = lastLineCode(r.stdout);
      expect(await json(await fetch(`${node.url}/auth/providers`))).toEqual({ providers: ["email"] });
      const res = await post(node, "/auth/email/verify", { email: "owner@example.com", code });
      expect(res.status).toBe(200);
      // the same email again is fine; another one is refused and nothing changes
      expect((await runKith(["owner", "code", "--data-dir", d, "--email", "owner@example.com"])).code).toBe(0);
      const refused = await runKith(["owner", "code", "--data-dir", d, "--email", "mallory@example.com"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("refusing to change it");
      expect(refused.stdout).toBe("");
    } finally {
      await node.stop();
    }
    const db = new Database(join(d, "kith.db"), { readonly: true });
    expect(db.query("SELECT value FROM settings WHERE key = 'owner_email'").get()).toEqual({ value: "owner@example.com" });
    db.close();
  });

  test("without any owner email and no --email it exits 2 and says what to pass; bad usage exits 2", async () => {
    const d = dir();
    expect((await runKith(["init", "--data-dir", d, "--handle", "alice", "--public-url", "https://alice.example.com"])).code).toBe(0);
    const r = await runKith(["owner", "code", "--data-dir", d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--email you@example.com");
    expect(r.stdout).toBe("");
    expect((await runKith(["owner"])).stderr).toContain("owner needs a command: code");
    expect((await runKith(["owner", "code", "--data-dir", d, "--email", "not-an-email"])).code).toBe(2);
  });

  test("a directory without a node is refused and nothing is created in it, with or without --email", async () => {
    const missing = dir();
    const r = await runKith(["owner", "code", "--data-dir", missing]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no Kith node in ${missing}: run npm run kith -- init or npm run kith -- serve first`);
    expect(r.stdout).toBe("");
    expect((await runKith(["owner", "code", "--data-dir", missing, "--email", "owner@example.com"])).code).toBe(1);
    expect(existsSync(missing)).toBe(false);
    const bad = await runKith(["owner", "code", "--data-dir", missing, "--email", "notanemail"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--email: "notanemail" is not a valid email address');
    expect(existsSync(missing)).toBe(false);
    const empty = dir();
    mkdirSync(empty);
    expect((await runKith(["owner", "code", "--data-dir", empty, "--email", "owner@example.com"])).code).toBe(1);
    expect(readdirSync(empty)).toEqual([]);
  });

  test("without SMTP the emailed code is in the node's log (field mail) and the start says so", async () => {
    const d = dir();
    const node = await startKith(["--data-dir", d], { env: { KITH_OWNER_EMAIL: "alice@example.com" } });
    try {
      expect(node.stderr()).toContain("no KITH_SMTP_URL: sign-in mail, code included, is written to this node's log");
      expect(node.stdout()).toContain("no SMTP configured (KITH_SMTP_URL)");
      expect((await post(node, "/auth/email/send", { email: "alice@example.com" })).status).toBe(200);
      let code: string | undefined;
      for (let i = 0; i < 200 && !code; i++) {
        code = node.stdout().split("\n").filter((l) => l.includes('"mail"')).map((l) => JSON.parse(l).mail as string)[0]?.match(/^\s+(\d{8})$/m)?.[1];
        if (!code) await Bun.sleep(10);
      }
      expect(code).toMatch(/^\d{8}$/);
      expect((await post(node, "/auth/email/verify", { email: "alice@example.com", code })).status).toBe(200);
    } finally {
      await node.stop();
    }
  });
});
