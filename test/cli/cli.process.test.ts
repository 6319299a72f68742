import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateAgentCard } from "../../src/ink/index.ts";
import { json, runKith, startKith } from "../helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const dir = () => join(work, `d${++n}`);

async function init(dataDir: string, extra: string[] = []) {
  return runKith(["init", "--data-dir", dataDir, "--public-url", "https://alice.example.com", "--handle", "alice", "--display-name", "Alice", "--owner-email", "alice@example.com", ...extra]);
}

describe("kith init", () => {
  test("creates the data directory (0700), a 0600 key file and the database; prints agent id and card URL", async () => {
    const d = dir();
    const r = await init(d);
    expect(r.code).toBe(0);
    const agentId = r.stdout.match(/agent id:\s+(svc:z6Mk\S+)/)?.[1];
    expect(agentId).toBeDefined();
    expect(r.stdout).toContain(`card url:  https://alice.example.com/ink/v1/${encodeURIComponent(agentId!)}/agent.json`);
    expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(statSync(join(d, "agent-key.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(d, "kith.db")).mode & 0o777).toBe(0o600);
    const db = new Database(join(d, "kith.db"), { readonly: true });
    expect(db.query("SELECT handle, display_name FROM agents").get()).toEqual({ handle: "alice", display_name: "Alice" });
    expect(db.query("SELECT value FROM settings WHERE key='owner_email'").get()).toEqual({ value: "alice@example.com" });
    db.close();
    expect(r.stdout + r.stderr).not.toMatch(/privateKeys|"secret"/);
  });

  test("refuses to overwrite an existing identity", async () => {
    const d = dir();
    expect((await init(d)).code).toBe(0);
    const before = readFileSync(join(d, "agent-key.json"), "utf8");
    const again = await init(d);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already");
    expect(readFileSync(join(d, "agent-key.json"), "utf8")).toBe(before);
  });

  test("bad flags exit 2 and name the setting and what is allowed", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["init", "--data-dir", dir(), "--public-url", "https://a.example"], /--handle is required/],
      [["init", "--data-dir", dir(), "--handle", "a"], /--public-url is required/],
      [["init", "--data-dir", dir(), "--handle", "Not Valid!", "--public-url", "https://a.example"], /handle: a handle is 1-32 lower-case/],
      [["init", "--data-dir", dir(), "--handle", "api", "--public-url", "https://a.example"], /"api" is reserved/],
      [["init", "--data-dir", dir(), "--handle", "a", "--public-url", "gopher://a"], /--public-url: must use https/],
      [["init", "--data-dir", dir(), "--handle", "a", "--public-url", "https://a.example", "--timezone", "Mars/Base"], /timezone: "Mars\/Base" is not an IANA time zone/],
      [["init", "--nope"], /unknown option '--nope'/],
      [["serve", "--port", "99999"], /--port: expected an integer from 0 to 65535/],
      [["keys"], /keys needs a command: show, rotate or revoke/],
      [["keys", "explode"], /unknown keys command "explode"/],
      [["backup"], /--out is required/],
      [["restore"], /--from is required/],
    ];
    for (const [args, pattern] of cases) {
      const r = await runKith(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(pattern);
    }
    const env = await runKith(["serve"], { env: { KITH_WORDMARK: "nope", KITH_DATA_DIR: dir() } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain("KITH_WORDMARK: expected one of svc, tulpa");
  });

  test("a refused init writes nothing: no data directory, and a later zero-config serve still creates the agent", async () => {
    const refusals: Array<[string[], RegExp]> = [
      [["--timezone", "Mars/Phobos"], /timezone: "Mars\/Phobos" is not an IANA time zone/],
      [["--handle", "a".repeat(40)], /handle: /],
      [["--display-name", "x".repeat(5000)], /displayName: 1-200 characters/],
    ];
    for (const [extra, pattern] of refusals) {
      const d = dir();
      const r = await runKith(["init", "--data-dir", d, "--handle", "ok", "--public-url", "http://localhost:1", ...extra]);
      expect({ extra, code: r.code }).toEqual({ extra, code: 2 });
      expect(r.stderr).toMatch(pattern);
      expect(existsSync(d)).toBe(false);
    }
    const d = dir();
    expect((await runKith(["init", "--data-dir", d, "--handle", "ok", "--public-url", "http://localhost:1", "--timezone", "Mars/Phobos"])).code).toBe(2);
    const node = await startKith(["--data-dir", d]);
    try {
      expect(node.stderr()).toMatch(/agent id:\s+svc:z6Mk/);
    } finally {
      await node.stop();
    }
  });

  test("every verb has --help; unknown verbs exit 2", async () => {
    const top = (await runKith(["--help"])).stdout;
    for (const verb of ["init", "serve", "keys", "owner", "mailbox", "backup", "restore", "version"]) {
      const r = await runKith([verb, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: npm run kith -- ${verb}`); // run from the checkout (cliName)
      // every verb's usage line names each option its list offers (--help and --log-level aside)
      const usage = r.stdout.split("\n")[0]!;
      for (const [, flag] of r.stdout.matchAll(/^\s+(?:-\w, )?\s*(--[\w-]+)/gm)) {
        if (flag !== "--help" && flag !== "--log-level") expect({ verb, flag, usage }).toEqual({ verb, flag, usage: expect.stringMatching(new RegExp(`${flag}[ \\]]`)) });
      }
      // `kith --help` lists every verb, and a verb with sub-commands names them
      const line = top.split("\n").find((l) => l.startsWith(`  ${verb} `)) ?? "";
      for (const sub of usage.matchAll(new RegExp(`kith ${verb} (\\w+)`, "g"))) if (sub[1] !== verb) expect({ verb, line }).toEqual({ verb, line: expect.stringContaining(sub[1]!) });
    }
    // the usage line lists every option of the list below it (--help and --log-level aside)
    const initHelp = (await runKith(["init", "--help"])).stdout;
    const usage = initHelp.split("\n")[0]!;
    const flags = [...initHelp.matchAll(/^\s+(?:-\w, )?\s*(--[\w-]+)/gm)];
    expect(flags.length).toBe(10);
    for (const flag of flags) {
      if (flag[1] !== "--help" && flag[1] !== "--log-level") expect({ flag: flag[1], usage }).toEqual({ flag: flag[1], usage: expect.stringContaining(`${flag[1]} `) });
    }
    const unknown = await runKith(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect((await runKith(["version"])).stdout).toMatch(/^kith \d+\.\d+\.\d+ \(bun \d/);
  });
});

describe("kith keys", () => {
  test("show lists public keys and statuses, never private material; rotate retires the old key", async () => {
    const d = dir();
    await init(d);
    const shown = await runKith(["keys", "show", "--json", "--data-dir", d]);
    expect(shown.code).toBe(0);
    const before = JSON.parse(shown.stdout);
    expect(before.keySetVersion).toBe(1);
    expect(before.keys.map((k: { role: string; status: string }) => `${k.role}:${k.status}`).sort()).toEqual(["encryption:active", "signing:active"]);
    const secret = JSON.parse(readFileSync(join(d, "agent-key.json"), "utf8")).secret.privateKeys as Record<string, string>;
    for (const value of Object.values(secret)) expect(shown.stdout).not.toContain(value);

    const rotated = await runKith(["keys", "rotate", "--data-dir", d]);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain("key set version:    2");
    const after = JSON.parse((await runKith(["keys", "show", "--json", "--data-dir", d])).stdout);
    const signing = after.keys.filter((k: { role: string }) => k.role === "signing");
    expect(signing.map((k: { status: string }) => k.status)).toEqual(["retired", "active"]);
    expect(signing[0].validUntil).not.toBeNull();
    expect(after.agentId).toBe(before.agentId);
  });

  test("a rotation made while the node runs shows on the running node's card at once", async () => {
    const d = dir();
    await init(d);
    const node = await startKith(["--data-dir", d]);
    try {
      const before = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
      expect((await runKith(["keys", "rotate", "--data-dir", d])).code).toBe(0);
      const after = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
      expect(after.keySetVersion).toBe(before.keySetVersion + 1);
      expect(after.currentSigningKeyId).not.toBe(before.currentSigningKeyId);
      expect(validateAgentCard(after).ok).toBe(true);
    } finally {
      await node.stop();
    }
  });
});

describe("kith backup / restore", () => {
  test("a backup taken while the node runs restores into a new directory with the same identity and data", async () => {
    const d = dir();
    await init(d);
    const seeded = new Database(join(d, "kith.db"));
    seeded.run("INSERT INTO settings (key, value, updated_at) VALUES ('event_stream_id', 'st_before-backup', 0)");
    seeded.close();
    const node = await startKith(["--data-dir", d]);
    const out = join(work, "b1.tar.gz");
    try {
      const b = await runKith(["backup", "--out", out, "--data-dir", d]);
      expect(b.code).toBe(0);
      expect(statSync(out).mode & 0o777).toBe(0o600);
      expect((await runKith(["backup", "--out", out, "--data-dir", d])).code).toBe(1); // never overwrites
    } finally {
      await node.stop();
    }
    const target = dir();
    const r = await runKith(["restore", "--from", out, "--data-dir", target]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(target, "agent-key.json"), "utf8")).toBe(readFileSync(join(d, "agent-key.json"), "utf8"));
    // the extension feed's stream: the original keeps its id, the restored copy starts a new one (its event log rewound)
    const streamOf = (dataDir: string) => {
      const db = new Database(join(dataDir, "kith.db"), { readonly: true });
      try {
        return (db.query("SELECT value FROM settings WHERE key = 'event_stream_id'").get() as { value: string } | null)?.value ?? null;
      } finally {
        db.close();
      }
    };
    expect([streamOf(d), streamOf(target)]).toEqual(["st_before-backup", null]);
    expect(statSync(join(target, "agent-key.json")).mode & 0o777).toBe(0o600);
    const original = JSON.parse((await runKith(["keys", "show", "--json", "--data-dir", d])).stdout);
    const restored = JSON.parse((await runKith(["keys", "show", "--json", "--data-dir", target])).stdout);
    expect(restored).toEqual(original);
    const revived = await startKith(["--data-dir", target]);
    try {
      const card = await json(await fetch(`${revived.url}/.well-known/ink/agent.json`));
      expect(card.agentId).toBe(original.agentId);
    } finally {
      await revived.stop();
    }
  });

  test("restore refuses a non-empty target, a damaged archive and a file that is not a backup", async () => {
    const d = dir();
    await init(d);
    const out = join(work, "b2.tar.gz");
    expect((await runKith(["backup", "--out", out, "--data-dir", d])).code).toBe(0);

    const occupied = dir();
    mkdirSync(occupied);
    writeFileSync(join(occupied, "something"), "x");
    const refused = await runKith(["restore", "--from", out, "--data-dir", occupied]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not empty");

    const bytes = Bun.gunzipSync(readFileSync(out));
    const tampered = new Uint8Array(bytes);
    const at = Buffer.from(bytes).indexOf(Buffer.from("SQLite format 3"));
    tampered[at + 5000] = (tampered[at + 5000]! + 1) % 256;
    const damaged = join(work, "damaged.tar.gz");
    writeFileSync(damaged, Bun.gzipSync(tampered));
    const bad = await runKith(["restore", "--from", damaged, "--data-dir", dir()]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("does not match its manifest hash");

    const junk = join(work, "junk.tar.gz");
    writeFileSync(junk, "definitely not gzip");
    const notBackup = await runKith(["restore", "--from", junk, "--data-dir", dir()]);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain("not a kith backup");
    expect(existsSync(join(work, `d${n}`))).toBe(false); // nothing half-restored left behind

    const truncated = join(work, "truncated.tar.gz");
    writeFileSync(truncated, readFileSync(out).subarray(0, 2000));
    const cut = await runKith(["restore", "--from", truncated, "--data-dir", dir()]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/truncated\.tar\.gz is damaged or truncated \(gzip: .+\)/);
    expect(cut.stderr).not.toContain("not gzip");
    expect(existsSync(join(work, `d${n}`))).toBe(false);
  });

  test("restore requires --data-dir: no silent ./kith-data default", async () => {
    const cwd = mkdtempSync(join(work, "cwd-"));
    const r = await runKith(["restore", "--from", join(work, "none.tar.gz")], { cwd, env: { KITH_DATA_DIR: join(cwd, "env-dir") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--data-dir is required");
    expect(readdirSync(cwd)).toEqual([]);
    expect((await runKith(["restore", "--help"])).stdout).toContain("Usage: npm run kith -- restore --from FILE --data-dir D");
  });
});

describe("kith serve", () => {
  test("zero-config start on an empty directory, prints where it listens, the agent id, the card URL and the owner; exits cleanly on SIGTERM", async () => {
    const d = dir();
    const node = await startKith(["--data-dir", d]);
    const err = node.stderr();
    expect(err).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(err).toMatch(/agent id:\s+svc:z6Mk/);
    expect(err).toMatch(/card:\s+http:\/\/localhost:\d+\/ink\/v1\/svc%3Az6Mk/);
    expect(err).toMatch(/owner:/);
    const card = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
    expect(card.endpoint).toBe(`http://localhost:${node.port}/ink/v1/${card.agentId}/intent`);
    expect(await node.stop("SIGTERM")).toBe(0);
    const lines = node.stdout().trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.some((l) => l.msg === "node started" && l.agentId === card.agentId)).toBe(true);
    expect(lines.at(-1)).toMatchObject({ msg: "stopped" });
    expect(existsSync(join(d, "kith.db-wal"))).toBe(false); // SQLite closed (last close checkpoints and removes the WAL)
  });

  test("a port in use is one line without a trace; a first start that cannot listen leaves nothing behind, an existing node stays intact", async () => {
    const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("busy") });
    try {
      const line = `kith serve: cannot listen on 127.0.0.1:${taken.port}: the port is in use (choose another with --port or KITH_PORT)`;
      const fresh = dir();
      const r = await runKith(["serve", "--port", String(taken.port), "--data-dir", fresh]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(line);
      expect(existsSync(fresh)).toBe(false);
      const node = await startKith(["--data-dir", fresh]); // and the next start is a zero-config start again
      try {
        expect(node.stderr()).toMatch(/agent id:\s+svc:z6Mk/);
      } finally {
        await node.stop();
      }

      const d = dir();
      await init(d);
      const key = readFileSync(join(d, "agent-key.json"), "utf8");
      const again = await runKith(["serve", "--port", String(taken.port), "--data-dir", d]);
      expect(again.code).toBe(1);
      expect(again.stderr.trim()).toBe(line);
      expect(readFileSync(join(d, "agent-key.json"), "utf8")).toBe(key);
      expect(existsSync(join(d, "kith.db-wal"))).toBe(false); // the database was closed
    } finally {
      void taken.stop(true);
    }
  });

  test("SIGINT also stops it cleanly", async () => {
    const node = await startKith(["--data-dir", dir()]);
    expect(await node.stop("SIGINT")).toBe(0);
  });

  test("refuses to start when the key file is readable by others", async () => {
    const d = dir();
    await init(d);
    chmodSync(join(d, "agent-key.json"), 0o644);
    const r = await runKith(["serve", "--port", "0", "--data-dir", d]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("readable by group or others");
    expect(r.stderr).toContain("chmod 600");
  });

  test("an encrypted key file needs its passphrase to start", async () => {
    const d = dir();
    const pass = join(work, `pass${n}`);
    writeFileSync(pass, "correct horse battery staple\n", { mode: 0o600 });
    expect((await init(d, ["--passphrase-file", pass])).code).toBe(0);
    expect(readFileSync(join(d, "agent-key.json"), "utf8")).toContain("scrypt-aes-256-gcm");
    const without = await runKith(["serve", "--port", "0", "--data-dir", d]);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain("KITH_KEY_PASSPHRASE");
    const wrong = await runKith(["serve", "--port", "0", "--data-dir", d], { env: { KITH_KEY_PASSPHRASE: "nope" } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("wrong passphrase");
    const node = await startKith(["--data-dir", d, "--passphrase-file", pass]);
    expect(node.stdout()).not.toContain("correct horse");
    expect(await node.stop()).toBe(0);
  });

  test("a key file without its database is refused with what to do", async () => {
    const d = dir();
    await init(d);
    rmSync(join(d, "kith.db"));
    const r = await runKith(["serve", "--port", "0", "--data-dir", d]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("npm run kith -- restore");
  });
});
