import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runKith, startKith, type RunResult } from "../helpers/process.ts";
import { TLS_CA_FILE, TLS_KEY_FILE } from "../helpers/tls.ts";

// Spawns kith processes: a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * Messages that misled or did not name the setting (review of issues 12, 21, 22): each one line
 * that says what is wrong and what to do, at start, instead of a wrong hint or a later failure.
 */
const work = mkdtempSync(join(tmpdir(), "kith-messages-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let template: string;
let n = 0;
beforeAll(async () => {
  template = join(work, "template");
  expect((await runKith(["init", "--data-dir", template, "--handle", "alice", "--public-url", "https://alice.example.com"])).code).toBe(0);
});
function node(): string {
  const d = join(work, `d${++n}`);
  cpSync(template, d, { recursive: true });
  return d;
}
function expectLine(r: RunResult, line: string) {
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: line });
}

describe("KITH_TLS_CA_FILE is checked at start", () => {
  test("a file with no certificate, or with a private key, is refused naming the setting; a CA certificate is accepted", async () => {
    const d = node();
    const serve = (file: string) => runKith(["serve", "--port", "0", "--data-dir", d], { env: { KITH_TLS_CA_FILE: file } });
    expectLine(await serve("/etc/passwd"), "kith serve: KITH_TLS_CA_FILE /etc/passwd holds no PEM certificate (-----BEGIN CERTIFICATE-----): point it at the CA certificate(s) peers' certificates chain to");
    expectLine(await serve(TLS_KEY_FILE), `kith serve: KITH_TLS_CA_FILE ${TLS_KEY_FILE} holds a PRIVATE KEY block: it must hold only the PEM CA certificates peers' certificates chain to (never a key)`);
    const broken = join(work, "broken-ca.pem");
    writeFileSync(broken, `${readFileSync(TLS_CA_FILE, "utf8")}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`);
    expectLine(await serve(broken), `kith serve: KITH_TLS_CA_FILE ${broken}: certificate 2 of 2 is not a valid X.509 certificate`);
    const running = await startKith(["--data-dir", d], { env: { KITH_TLS_CA_FILE: TLS_CA_FILE } });
    expect(await running.stop()).toBe(0);
  });
});

describe("the data directory's files of the wrong kind", () => {
  test("kith.db that is a directory: every verb says so (not 'chmod 600', not 'unable to open database file')", async () => {
    const d = node();
    rmSync(join(d, "kith.db"), { force: true });
    mkdirSync(join(d, "kith.db"));
    const line = `${join(d, "kith.db")} is a directory, not part of the node's database: move it away and restore the database (npm run kith -- restore), or start a new node in another --data-dir`;
    for (const args of [["serve", "--port", "0"], ["keys", "show"], ["keys", "rotate"], ["owner", "code", "--email", "o@example.com"], ["backup", "--out", join(work, `b${n}.tgz`)]]) {
      expectLine(await runKith([...args, "--data-dir", d]), `kith ${args[0]}: ${line}`);
    }
  });

  test("kith.lock that is a directory: serve says to remove it", async () => {
    const d = node();
    rmSync(join(d, "kith.lock"), { force: true });
    mkdirSync(join(d, "kith.lock"));
    expectLine(await runKith(["serve", "--port", "0", "--data-dir", d]), `kith serve: ${join(d, "kith.lock")} is a directory, not kith serve's lock file: remove it (nothing in it is needed) and start again`);
  });

  test("an empty (0-byte) kith.db is no node: owner code, keys and backup refuse and leave it as it is", async () => {
    const d = node();
    for (const f of ["kith.db", "kith.db-wal", "kith.db-shm"]) rmSync(join(d, f), { force: true });
    writeFileSync(join(d, "kith.db"), "", { mode: 0o600 });
    const line = `${join(d, "kith.db")} is empty (0 bytes): there is no node in ${d}; restore the database from a backup (npm run kith -- restore), or move it away and run npm run kith -- init`;
    for (const args of [["owner", "code", "--email", "o@example.com"], ["keys", "show"], ["keys", "rotate"], ["backup", "--out", join(work, `e${n}.tgz`)]]) {
      const r = await runKith([...args, "--data-dir", d]);
      expectLine(r, `kith ${args[0]}: ${line}`);
      expect(r.stdout).toBe("");
    }
    expect(statSync(join(d, "kith.db")).size).toBe(0);
  });
});

describe("--host", () => {
  test("[::1] binds ::1 and prints http://[::1]:port; brackets around an IPv4 address or a host with / are refused", async () => {
    const d = node();
    const running = await startKith(["--data-dir", d, "--host", "[::1]"]);
    try {
      expect(running.stderr()).toMatch(/listening on http:\/\/\[::1\]:\d+\n/);
      expect((await fetch(`http://[::1]:${running.port}/health`)).status).toBe(200);
    } finally {
      expect(await running.stop()).toBe(0);
    }
    const refused = await runKith(["serve", "--port", "0", "--host", "[127.0.0.1]", "--data-dir", d]);
    expect({ code: refused.code, line: refused.stderr.split("\n")[0] }).toEqual({ code: 2, line: 'kith serve: Invalid setting --host: brackets are for IPv6 addresses (e.g. [::1]); write "127.0.0.1" without them' });
    expect((await runKith(["serve", "--port", "0", "--host", "a/b", "--data-dir", d])).stderr).toContain('Invalid setting --host: "a/b" is not an address or host name');
  });
});
