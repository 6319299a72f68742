import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, closeSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, json, MAIN, runKith, startKith, type RunResult } from "../helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * The data directory survives mistakes (issue 12): every verb answers a broken directory with one
 * line saying what to do, never a stack trace; creating a node is all or nothing; one `kith serve`
 * per directory; a key file must belong to the database's agent; secrets readable by others are
 * refused; the TLS and host settings that fail at listen are named. docs/decisions/data-directory.md
 */
const work = mkdtempSync(join(tmpdir(), "kith-datadir-"));
chmodSync(work, 0o755); // traversable by the unprivileged user some cases run as
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(work, `d${++n}`);
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let template: string;
beforeAll(async () => {
  template = join(work, "template");
  const r = await runKith(["init", "--data-dir", template, "--handle", "alice", "--public-url", "https://alice.example.com"]);
  expect(r.code).toBe(0);
});
/** A copy of one finished node (init is the slow part). */
function node(): string {
  const d = fresh();
  cpSync(template, d, { recursive: true });
  return d;
}

type Verb = { name: string; args: (d: string) => string[] };
const VERBS: Verb[] = [
  { name: "serve", args: (d) => ["serve", "--port", "0", "--data-dir", d] },
  { name: "init", args: (d) => ["init", "--handle", "bob", "--public-url", "https://bob.example.com", "--data-dir", d] },
  { name: "keys", args: (d) => ["keys", "show", "--data-dir", d] },
  { name: "owner", args: (d) => ["owner", "code", "--email", "owner@example.com", "--data-dir", d] },
  { name: "backup", args: (d) => ["backup", "--out", join(work, `backup-${++n}.tar.gz`), "--data-dir", d] },
];

/** One line on stderr, `kith <verb>: …`, exit 1, nothing on stdout but the node's JSON log, no stack frame. */
function expectOneLine(r: RunResult, verb: string, pattern: RegExp | string) {
  const lines = r.stderr.replace(/\n$/, "").split("\n");
  const stdout = r.stdout.split("\n").filter((l) => l !== "" && !l.startsWith('{"time":'));
  expect({ verb, code: r.code, lines: lines.length, stdout }).toEqual({ verb, code: 1, lines: 1, stdout: [] });
  expect(lines[0]!.startsWith(`kith ${verb}: `)).toBe(true);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  if (typeof pattern === "string") expect(lines[0]).toContain(pattern);
  else expect(lines[0]).toMatch(pattern);
}

const setpriv = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"];
// Only where nobody can reach Bun and the sources: a checkout under a directory only root may
// enter (mktemp -d makes one 0700) would fail every verb for that reason, not the one tested.
const nobodyCanRun = () => Bun.spawnSync([...setpriv, "test", "-x", process.execPath, "-a", "-r", MAIN]).exitCode === 0;
const asNobody = isRoot && Bun.which("setpriv") && nobodyCanRun() ? [...setpriv, process.execPath, MAIN] : undefined;

describe("a broken data directory: one line with what to do, for every verb", () => {
  test("the path is a file", async () => {
    const file = join(work, "a-file");
    writeFileSync(file, "not a directory\n");
    for (const verb of VERBS) expectOneLine(await runKith(verb.args(file)), verb.name, `${file} is a file, not a directory: choose another --data-dir or KITH_DATA_DIR`);
  });

  test("the directory belongs to another user", async () => {
    const d = isRoot ? node() : "/";
    if (isRoot) chownSync(d, NOBODY, NOBODY);
    const before = readdirSync(d).sort();
    for (const verb of VERBS) expectOneLine(await runKith(verb.args(d)), verb.name, /belongs to .*, but kith runs as .*: run kith as that user \(sudo -u .* kith …\), or chown -R /);
    expect(readdirSync(d).sort()).toEqual(before); // nothing was added
  });

  test.if(!isRoot || !!asNobody)("the directory is not writable by the user running kith", async () => {
    const d = node();
    if (isRoot) {
      for (const name of ["", ...readdirSync(d)]) chownSync(join(d, name), NOBODY, NOBODY);
    }
    chmodSync(d, 0o500);
    try {
      for (const verb of VERBS) {
        const r = await runKith(verb.args(d), asNobody ? { bin: asNobody, cwd: work } : {});
        // keys show only reads: a read-only directory is enough (backup too, but its --out here is not nobody's to write).
        if (verb.name === "keys") expect({ verb: verb.name, code: r.code, stderr: r.stderr }).toEqual({ verb: verb.name, code: 0, stderr: "" });
        else expectOneLine(r, verb.name, verb.name === "backup" ? `cannot write ${work}/.kith-backup-` : `${d} is not writable by`);
      }
      const missing = join(d, "inside");
      expectOneLine(await runKith(VERBS[0]!.args(missing), asNobody ? { bin: asNobody, cwd: work } : {}), "serve", `cannot create ${missing}: ${d} is not writable by`);
    } finally {
      chmodSync(d, 0o700);
    }
  });

  test("kith.db is not a database: every verb says it is damaged and how to restore a backup", async () => {
    for (const verb of VERBS) {
      const d = node();
      writeFileSync(join(d, "kith.db"), "this is not SQLite ".repeat(400), { mode: 0o600 });
      if (verb.name === "init") rmSync(join(d, "agent-key.json")); // init refuses a directory with a key before it reads the database
      expectOneLine(await runKith(verb.args(d)), verb.name, new RegExp(`${join(d, "kith.db")} is damaged \\(file is not a database\\)\\. Restore your latest backup into a new directory: npm run kith -- restore --from <backup\\.tar\\.gz> --data-dir <new dir>`));
    }
  });

  test("a damaged page: serve finds it at start (quick_check), keys and backup when they read it", async () => {
    const d = node();
    const db = new Database(join(d, "kith.db"));
    db.exec("PRAGMA journal_mode=DELETE");
    const page = db.query<{ rootpage: number }, []>("SELECT rootpage FROM sqlite_master WHERE name = 'agent_keys'").get()!.rootpage;
    db.close();
    const fd = openSync(join(d, "kith.db"), "r+");
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
    closeSync(fd);
    for (const verb of [VERBS[0]!, VERBS[2]!, VERBS[4]!]) expectOneLine(await runKith(verb.args(d)), verb.name, /kith\.db is damaged \(.+\)\. Restore your latest backup/);
  });

  test("a kith.db (or its -wal) that group or others can read is refused with the chmod to run", async () => {
    for (const file of ["kith.db", "kith.db-wal"]) {
      for (const verb of VERBS.filter((v) => v.name !== "init")) {
        const d = node();
        if (file === "kith.db-wal") writeFileSync(join(d, file), "");
        chmodSync(join(d, file), 0o644);
        expectOneLine(await runKith(verb.args(d)), verb.name, `${join(d, file)} is readable by group or others (mode 644); run: chmod 600 ${join(d, file)}`);
      }
    }
  });

  test("a passphrase file that group or others can read is refused like the key file (exit 2: a setting)", async () => {
    const d = node();
    const pass = join(work, "pass-open");
    writeFileSync(pass, "correct horse\n");
    chmodSync(pass, 0o644);
    const r = await runKith(["serve", "--port", "0", "--data-dir", d, "--passphrase-file", pass]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Invalid setting --passphrase-file: ${pass} is readable by group or others (mode 644); run: chmod 600 ${pass}`);
  });

  test("hostile scrypt parameters in an encrypted key file: one line, not a RangeError", async () => {
    const d = fresh();
    const pass = join(work, "pass-ok");
    writeFileSync(pass, "correct horse\n", { mode: 0o600 });
    expect((await runKith(["init", "--data-dir", d, "--handle", "carol", "--public-url", "https://c.example", "--passphrase-file", pass])).code).toBe(0);
    const file = join(d, "agent-key.json");
    const json = JSON.parse(readFileSync(file, "utf8"));
    json.secret.kdf.N = 2 ** 22;
    json.secret.kdf.r = 32;
    writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
    expectOneLine(await runKith(["serve", "--port", "0", "--data-dir", d, "--passphrase-file", pass]), "serve", /scrypt N=4194304, r=32 need more than 256 MiB of memory/);
    expectOneLine(await runKith(["keys", "rotate", "--data-dir", d, "--passphrase-file", pass]), "keys", /scrypt N=4194304/);
  });
});

describe("a key file from another node is refused", () => {
  test("serve and keys rotate refuse a key file that does not hold the database's agent keys", async () => {
    const d = node();
    const other = fresh();
    expect((await runKith(["init", "--data-dir", other, "--handle", "mallory", "--public-url", "https://m.example"])).code).toBe(0);
    cpSync(join(other, "agent-key.json"), join(d, "agent-key.json"));
    expectOneLine(await runKith(VERBS[0]!.args(d)), "serve", /cannot start: .*agent-key\.json belongs to another agent: it does not hold this node's genesis key z6Mk\w+; put this node's own key file back, or restore a backup/);
    expectOneLine(await runKith(["keys", "rotate", "--data-dir", d]), "keys", /belongs to another agent/);
    expect(JSON.parse(readFileSync(join(d, "agent-key.json"), "utf8")).keys).toHaveLength(2); // rotate appended nothing
  });
});

describe("creating a node is all or nothing", () => {
  /**
   * Kills `kith init` or a first `kith serve` with SIGKILL at many moments after it starts
   * creating, then checks what a user would: the directory is untouched (no node), or it is a
   * whole node, or it is marked incomplete and the next `kith init` makes a whole node of it.
   */
  async function killSweep(kind: "init" | "serve", inPlace: boolean) {
    const outcomes = new Set<string>();
    const abandoned: string[] = [];
    for (let i = 0; i < 7; i++) {
      const d = fresh();
      const name = `d${n}`;
      if (inPlace) mkdirSync(d, { mode: 0o700 });
      const args = kind === "init" ? VERBS[1]!.args(d) : VERBS[0]!.args(d);
      const proc = Bun.spawn([process.execPath, MAIN, ...args], { cwd: work, env: cleanEnv(), stdout: "ignore", stderr: "ignore" });
      const staging = () => readdirSync(work).filter((f) => f.startsWith(`.${name}.creating-`));
      const started = () => (inPlace ? readdirSync(d).length > 0 : existsSync(d) || staging().length > 0);
      for (let t = 0; t < 5000 && !started() && proc.exitCode === null; t++) await Bun.sleep(1);
      await Bun.sleep(i * 4);
      proc.kill("SIGKILL");
      await proc.exited;
      const contents = existsSync(d) ? readdirSync(d) : null;
      if (contents === null || contents.length === 0) {
        if (staging().length > 0) abandoned.push(d);
        outcomes.add("nothing");
        continue;
      }
      const keys = await runKith(["keys", "show", "--json", "--data-dir", d]);
      if (keys.code === 0) {
        expect(JSON.parse(keys.stdout).keys).toHaveLength(2);
        outcomes.add("whole");
        continue;
      }
      expect({ i, stderr: keys.stderr }).toEqual({ i, stderr: `kith keys: the node in ${d} is incomplete: creating it was interrupted; run npm run kith -- init or npm run kith -- serve on it again\n` });
      const again = await runKith(VERBS[1]!.args(d));
      expect({ i, code: again.code, stderr: again.stderr }).toEqual({ i, code: 0, stderr: "" });
      outcomes.add("incomplete, completed by the next init");
    }
    // a killed creation's staging directory (an unused private key) goes with the next creation there
    for (const d of abandoned.slice(0, 2)) {
      expect((await runKith(VERBS[1]!.args(d))).code).toBe(0);
      expect(readdirSync(work).filter((f) => f.startsWith(`.${d.split("/").at(-1)}.creating-`))).toEqual([]);
    }
    return outcomes;
  }

  test("kith init into a new directory (built beside it, renamed into place)", async () => {
    const outcomes = await killSweep("init", false);
    expect(outcomes.has("incomplete, completed by the next init")).toBe(false); // a rename is one step
  }, 30_000);

  test("kith init into an existing empty directory (built in place under a marker)", async () => {
    await killSweep("init", true);
  }, 30_000);

  test("a first kith serve into a new directory", async () => {
    await killSweep("serve", false);
  }, 30_000);

  test("an interrupted creation is finished by the next kith serve, which then has an agent", async () => {
    const d = fresh();
    mkdirSync(d, { mode: 0o700 });
    writeFileSync(join(d, ".kith-creating"), "999999999\n"); // a process that does not exist
    writeFileSync(join(d, "agent-key.json"), "{\"half\":true}", { mode: 0o600 });
    writeFileSync(join(d, "notes.txt"), "the owner's own file\n");
    const node = await startKith(["--data-dir", d]);
    try {
      expect(await json(await fetch(`${node.url}/health`))).toMatchObject({ agent: true });
    } finally {
      expect(await node.stop()).toBe(0);
    }
    expect(readdirSync(d).sort()).toEqual(["agent-key.json", "auth-secret", "kith.db", "kith.lock", "notes.txt"]);
  });

  test("a creation still running in the directory (its marker names a live process) is not swept away", async () => {
    const d = fresh();
    mkdirSync(d, { mode: 0o700 });
    writeFileSync(join(d, ".kith-creating"), `${process.pid}\n`);
    writeFileSync(join(d, "agent-key.json"), "{}", { mode: 0o600 });
    expectOneLine(await runKith(VERBS[1]!.args(d)), "init", `another kith process (pid ${process.pid}) is creating a node in ${d}; wait for it to finish`);
    expect(readdirSync(d).sort()).toEqual([".kith-creating", "agent-key.json"]);
  });
});

describe("one kith serve per data directory", () => {
  test("a second serve is refused while the first runs; after kill -9 a new one starts without any cleanup", async () => {
    const d = node();
    const first = await startKith(["--data-dir", d]);
    try {
      expectOneLine(await runKith(VERBS[0]!.args(d)), "serve", `another kith serve is already running on ${d}; stop it first`);
      // the verbs made to run beside the node still work
      expect((await runKith(VERBS[2]!.args(d))).code).toBe(0);
      expect((await runKith(VERBS[3]!.args(d))).code).toBe(0);
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
    } finally {
      expect(await first.stop("SIGKILL")).not.toBe(0);
    }
    const second = await startKith(["--data-dir", d]);
    expect((await fetch(`${second.url}/health`)).status).toBe(200);
    expect(await second.stop()).toBe(0);
  });
});

describe("settings that fail at listen are named", () => {
  const tls = join(import.meta.dir, "../fixtures/tls");
  test("a TLS key or certificate file that is wrong names its setting; nothing is created", async () => {
    const otherKey = join(work, "other.key");
    const made = Bun.spawnSync(["openssl", "genpkey", "-algorithm", "ed25519", "-out", otherKey]);
    const cases: Array<[Record<string, string>, string]> = [
      [{ KITH_TLS_CERT_FILE: join(tls, "localhost.crt"), KITH_TLS_KEY_FILE: join(tls, "ca.crt") }, `KITH_TLS_KEY_FILE ${join(tls, "ca.crt")} is not an unencrypted PEM private key`],
      [{ KITH_TLS_CERT_FILE: join(tls, "localhost.key"), KITH_TLS_KEY_FILE: join(tls, "localhost.key") }, `KITH_TLS_CERT_FILE ${join(tls, "localhost.key")} is not a PEM certificate`],
      ...(made.exitCode === 0 ? [[{ KITH_TLS_CERT_FILE: join(tls, "localhost.crt"), KITH_TLS_KEY_FILE: otherKey }, `KITH_TLS_KEY_FILE ${otherKey} is not the key of the certificate in KITH_TLS_CERT_FILE`] as [Record<string, string>, string]] : []),
    ];
    for (const [env, message] of cases) {
      const d = fresh();
      expectOneLine(await runKith(VERBS[0]!.args(d), { env }), "serve", message);
      expect(existsSync(d)).toBe(false);
    }
  });

  test("--host that is no address of this machine names --host / KITH_HOST; a first start leaves nothing", async () => {
    const d = fresh();
    expectOneLine(await runKith([...VERBS[0]!.args(d), "--host", "not-a-host.invalid"]), "serve", `--host / KITH_HOST "not-a-host.invalid" is not an address of this machine nor a name that resolves to one`);
    expect(existsSync(d)).toBe(false);
  });

  test("loopback or private KITH_DIRECTORIES entries are warned about at start (they need KITH_ALLOW_PRIVATE_PEERS)", async () => {
    const node = await startKith(["--data-dir", fresh()], { env: { KITH_DIRECTORIES: "https://127.0.0.1:9443,https://[fd00::1]/,https://directory.example.org" } });
    try {
      const warnings = node.stderr().split("\n").filter((l) => l.includes("warning:"));
      expect(warnings).toEqual([
        "  warning:    KITH_DIRECTORIES: https://127.0.0.1:9443 is a loopback, private or special-use address; publishing there fails unless KITH_ALLOW_PRIVATE_PEERS=1",
        "  warning:    KITH_DIRECTORIES: https://[fd00::1] is a loopback, private or special-use address; publishing there fails unless KITH_ALLOW_PRIVATE_PEERS=1",
      ]);
    } finally {
      await node.stop();
    }
  });
});

describe("kith owner code refuses without creating anything", () => {
  test("no owner email and no --email: refused before auth-secret is created", async () => {
    const d = node();
    rmSync(join(d, "auth-secret"));
    const r = await runKith(["owner", "code", "--data-dir", d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no owner email is set");
    expect(existsSync(join(d, "auth-secret"))).toBe(false);
  });
});
