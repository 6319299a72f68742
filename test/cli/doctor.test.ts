import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Io } from "../../src/cli/command.ts";
import { UsageError } from "../../src/cli/command.ts";
import { doctorCommand } from "../../src/cli/doctor.ts";
import { initCommand } from "../../src/cli/init.ts";
import type { CheckResult } from "../../src/cli/doctor/check.ts";
import { closedPort, makeCertificate, startFakeSmtp } from "../helpers/doctor.ts";

// kith doctor in-process: every warn and fail path, against real files, a real SQLite database
// and real loopback servers (TLS with generated certificates, SMTP, an OpenAI-compatible API).
const work = mkdtempSync(join(tmpdir(), "kith-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

const quiet: Io = { out: () => {}, err: () => {}, env: {}, cwd: work };

async function makeNode(publicUrl = "https://localhost:1"): Promise<string> {
  const dir = join(work, `n${++n}`);
  const code = await initCommand.run({ "data-dir": dir, handle: "alice", "public-url": publicUrl }, quiet, []);
  expect(code).toBe(0);
  return dir;
}

async function doctor(dir: string, env: Record<string, string> = {}): Promise<{ code: number; checks: CheckResult[]; text: string; byName: (name: string) => CheckResult }> {
  const out: string[] = [];
  const io: Io = { out: (l) => out.push(l), err: (l) => out.push(l), env: { KITH_ALLOW_PRIVATE_PEERS: "true", ...env }, cwd: work };
  const code = await doctorCommand.run({ "data-dir": dir, json: true }, io, []);
  const report = JSON.parse(out.join("\n")) as { ok: boolean; checks: CheckResult[] };
  expect(report.ok).toBe(code === 0);
  const byName = (name: string) => {
    const c = report.checks.find((x) => x.name === name);
    if (!c) throw new Error(`no check ${name} in ${JSON.stringify(report.checks)}`);
    return c;
  };
  return { code, checks: report.checks, text: out.join("\n"), byName };
}

/** Every non-ok line says what to do. */
function expectFixes(checks: CheckResult[]) {
  for (const c of checks) if (c.status === "warn" || c.status === "fail") expect(c.fix?.length ?? 0).toBeGreaterThan(10);
}

describe("kith doctor: the data directory", () => {
  test("no node there: one failing line naming the directory, exit 1", async () => {
    const r = await doctor(join(work, "nothing-here"));
    expect(r.code).toBe(1);
    expect(r.byName("data-dir")).toMatchObject({ status: "fail" });
    expect(r.byName("data-dir").message).toContain("nothing-here");
  });

  test("a directory where kith serve's lock file goes: a failing node line with its fix, not a crash", async () => {
    const dir = await makeNode();
    mkdirSync(join(dir, "kith.lock"));
    const r = await doctor(dir);
    expect(r.code).toBe(1);
    expect(r.byName("node")).toMatchObject({ status: "fail", message: expect.stringContaining("is a directory") });
    expect(r.byName("database").status).toBe("ok"); // the other checks still run
    expectFixes(r.checks);
  });

  test("a fresh node: the local checks pass; the node not running is a warning; text output has a fix line per problem", async () => {
    const dir = await makeNode();
    const r = await doctor(dir);
    for (const name of ["data-dir", "key-file", "data-files", "disk", "database", "wal", "schema", "outbox", "failing-peers"]) expect(r.byName(name).status).toBe("ok");
    expect(r.byName("node").status).toBe("warn");
    expectFixes(r.checks);
    const lines: string[] = [];
    const code = await doctorCommand.run({ "data-dir": dir }, { ...quiet, out: (l) => lines.push(l), env: { KITH_ALLOW_PRIVATE_PEERS: "true" } }, []);
    expect(code).toBe(1); // nothing answers at https://localhost:1
    expect(lines.join("\n")).toMatch(/WARN\s+node\s+no kith serve is running[^\n]*\n\s+fix: start it/);
  });

  test("a key file, database or auth-secret readable by others fails; an open data directory warns", async () => {
    const dir = await makeNode();
    chmodSync(join(dir, "agent-key.json"), 0o644);
    chmodSync(join(dir, "auth-secret"), 0o640);
    chmodSync(dir, 0o755);
    const r = await doctor(dir);
    expect(r.byName("key-file")).toMatchObject({ status: "fail" });
    expect(r.byName("key-file").fix).toContain("chmod 600");
    expect(r.byName("data-files")).toMatchObject({ status: "fail" });
    expect(r.byName("data-files").message).toContain("auth-secret");
    expect(r.byName("data-dir")).toMatchObject({ status: "warn" });
    expect(r.code).toBe(1);
  });

  test("a nearly full disk (the thresholds are settings) warns, then fails; a bad threshold is a usage error", async () => {
    const dir = await makeNode();
    expect((await doctor(dir, { KITH_DOCTOR_DISK_WARN_MB: "999999999" })).byName("disk").status).toBe("warn");
    const full = await doctor(dir, { KITH_DOCTOR_DISK_FAIL_MB: "999999999" });
    expect(full.byName("disk").status).toBe("fail");
    expect(full.code).toBe(1);
    expect(() => doctorCommand.run({ "data-dir": dir }, { ...quiet, env: { KITH_DOCTOR_DISK_WARN_MB: "lots" } }, [])).toThrow(UsageError);
  });

  test("a WAL above its threshold warns (a reader that keeps checkpoints from finishing)", async () => {
    const dir = await makeNode();
    const holder = new Database(join(dir, "kith.db"));
    holder.exec("PRAGMA wal_autocheckpoint = 0");
    holder.exec("INSERT INTO settings (key, value, updated_at) VALUES ('doctor_test', 'x', 0)");
    try {
      const r = await doctor(dir, { KITH_DOCTOR_WAL_WARN_MB: "0" });
      expect(r.byName("wal")).toMatchObject({ status: "warn" });
    } finally {
      holder.close();
    }
  });

  test("a damaged database fails with how to restore", async () => {
    const dir = await makeNode();
    const db = join(dir, "kith.db");
    const sqlite = new Database(db);
    sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite.close();
    const bytes = new Uint8Array(await Bun.file(db).arrayBuffer());
    bytes.fill(0x5a, 4096, 4096 * 6);
    writeFileSync(db, bytes);
    const r = await doctor(dir);
    expect(r.byName("database")).toMatchObject({ status: "fail" });
    expect(r.byName("database").fix).toContain("npm run kith -- restore");
    expect(r.code).toBe(1);
  });

  test("schema: older than the binary warns (serve migrates), newer fails (run the newer binary)", async () => {
    const dir = await makeNode();
    const sqlite = new Database(join(dir, "kith.db"));
    const last = sqlite.query<{ id: number; created_at: number }, []>("SELECT id, created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1").get()!;
    sqlite.query("UPDATE __drizzle_migrations SET created_at = ? WHERE id = ?").run(last.created_at - 1, last.id);
    expect((await doctor(dir)).byName("schema").status).toBe("warn");
    sqlite.query("UPDATE __drizzle_migrations SET created_at = ? WHERE id = ?").run(last.created_at + 1_000_000, last.id);
    sqlite.close();
    const newer = await doctor(dir);
    expect(newer.byName("schema").status).toBe("fail");
    expect(newer.byName("schema").fix).toContain("newer kith");
  });

  test("an invalid setting is a failing line, and the data directory is still examined", async () => {
    const dir = await makeNode();
    const r = await doctor(dir, { KITH_SMTP_URL: "not a url", SMTP_PASSWORD_IS: "hunter2" });
    expect(r.byName("settings").status).toBe("fail");
    expect(r.byName("settings").message).toContain("KITH_SMTP_URL");
    expect(r.byName("database").status).toBe("ok");
    expect(r.code).toBe(1);
  });
});

describe("kith doctor: the public face", () => {
  const servers: Array<{ stop(force?: boolean): unknown }> = [];
  afterAll(() => servers.forEach((s) => s.stop(true)));
  let certs: Record<"long" | "soon" | "verySoon", ReturnType<typeof makeCertificate>>;
  beforeAll(() => {
    certs = { long: makeCertificate(365), soon: makeCertificate(10), verySoon: makeCertificate(3) };
  });

  function serve(cert: ReturnType<typeof makeCertificate>, handler: (req: Request) => Response) {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: { cert: cert.cert, key: cert.key }, fetch: handler });
    servers.push(server);
    return `https://localhost:${server.port}`;
  }

  test("no public URL set warns; an http public URL fails (INK peers only take https)", async () => {
    const dir = await makeNode();
    const sqlite = new Database(join(dir, "kith.db"));
    sqlite.exec("DELETE FROM settings WHERE key = 'public_url'");
    sqlite.close();
    const unset = await doctor(dir);
    expect(unset.byName("public-url").status).toBe("warn");
    expect(unset.byName("card").status).toBe("skip");
    const http = await doctor(dir, { KITH_PUBLIC_URL: "http://kith.example.com" });
    expect(http.byName("public-url").status).toBe("fail");
    expect(http.code).toBe(1);
  });

  test("nothing answers at the public URL: card and tls fail with what to check", async () => {
    const dir = await makeNode(`https://localhost:${await closedPort()}`);
    const r = await doctor(dir);
    expect(r.byName("card")).toMatchObject({ status: "fail" });
    expect(r.byName("card").fix).toContain("kith serve is running");
    expect(r.byName("tls").status).toBe("fail");
    expect(r.byName("clock").status).toBe("skip");
  });

  test("a card that does not validate fails, a 404 warns (private card), a redirect fails (peers never follow it)", async () => {
    let answer: () => Response = () => Response.json({ protocol: "ink/0.1", hello: "world" });
    const url = serve(certs.long, () => answer());
    const dir = await makeNode(url);
    const env = { KITH_TLS_CA_FILE: certs.long.caFile };
    const bad = await doctor(dir, env);
    expect(bad.byName("card")).toMatchObject({ status: "fail" });
    expect(bad.byName("card").message).toContain("invalid_card");
    expect(bad.byName("tls").status).toBe("ok");
    answer = () => new Response("not json", { headers: { "content-type": "text/html" } });
    expect((await doctor(dir, env)).byName("card").message).toContain("content_type");
    answer = () => Response.json({ error: "not_found" }, { status: 404 });
    expect((await doctor(dir, env)).byName("card").status).toBe("warn");
    answer = () => new Response(null, { status: 301, headers: { location: "https://elsewhere.example/" } });
    const moved = await doctor(dir, env);
    expect(moved.byName("card")).toMatchObject({ status: "fail" });
    expect(moved.byName("card").message).toContain("redirect");
  });

  test("TLS: a certificate expiring within 21 days warns, within 7 days fails, an untrusted one fails", async () => {
    const soon = await makeNode(serve(certs.soon, () => new Response("x")));
    expect((await doctor(soon, { KITH_TLS_CA_FILE: certs.soon.caFile })).byName("tls").status).toBe("warn");
    const verySoon = await makeNode(serve(certs.verySoon, () => new Response("x")));
    const r = await doctor(verySoon, { KITH_TLS_CA_FILE: certs.verySoon.caFile });
    expect(r.byName("tls")).toMatchObject({ status: "fail" });
    expect(r.byName("tls").fix).toContain("renew");
    const untrusted = await doctor(verySoon, { KITH_TLS_CA_FILE: certs.long.caFile });
    expect(untrusted.byName("tls").message).toContain("not trusted");
  });

  test("clock: the public URL's Date 10 s off warns, 10 min off fails", async () => {
    let offset = 0;
    const dir = await makeNode(serve(certs.long, () => Response.json({}, { headers: { date: new Date(Date.now() + offset).toUTCString() } })));
    const env = { KITH_TLS_CA_FILE: certs.long.caFile };
    offset = 10_000;
    expect((await doctor(dir, env)).byName("clock").status).toBe("warn");
    offset = -600_000;
    const r = await doctor(dir, env);
    expect(r.byName("clock")).toMatchObject({ status: "fail" });
    expect(r.byName("clock").message).toContain("ahead");
  });
});

describe("kith doctor: queues and backends", () => {
  const HOUR = 3_600_000;
  function insertOutbox(dir: string, rows: Array<{ peer: string; status: string; ageMs: number; attempts: number; error?: string }>) {
    const sqlite = new Database(join(dir, "kith.db"));
    const now = Date.now();
    rows.forEach((r, i) =>
      sqlite
        .query("INSERT INTO outbox (id, message_id, peer_principal, status, attempts, next_attempt_at, last_attempt_at, last_error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(`ob${i}`, `m${i}`, r.peer, r.status, r.attempts, now, now - 1000, r.error ?? null, now - r.ageMs),
    );
    sqlite.close();
  }

  test("outbox: a delivery waiting over an hour warns, over 12 hours fails", async () => {
    const dir = await makeNode();
    insertOutbox(dir, [{ peer: "svc:zbob", status: "queued", ageMs: 2 * HOUR, attempts: 0 }]);
    expect((await doctor(dir)).byName("outbox").status).toBe("warn");
    const old = await makeNode();
    insertOutbox(old, [{ peer: "svc:zbob", status: "queued", ageMs: 13 * HOUR, attempts: 0 }]);
    const r = await doctor(old);
    expect(r.byName("outbox").status).toBe("fail");
    expect(r.byName("outbox").message).toContain("1 delivery waiting");
  });

  test("failing peers: a peer every delivery to which failed for over a day is named with its last error; one that got a delivery since is not", async () => {
    const dir = await makeNode();
    insertOutbox(dir, [
      { peer: "svc:zgone", status: "failed", ageMs: 30 * HOUR, attempts: 30, error: "connection refused" },
      { peer: "svc:zflaky", status: "failed", ageMs: 30 * HOUR, attempts: 30, error: "timeout" },
      { peer: "svc:zflaky", status: "delivered", ageMs: 30 * HOUR, attempts: 1 },
    ]);
    const sqlite = new Database(join(dir, "kith.db"));
    sqlite.query("UPDATE outbox SET delivered_at = ? WHERE status = 'delivered'").run(Date.now() - HOUR);
    sqlite.close();
    const r = await doctor(dir);
    expect(r.byName("failing-peers").status).toBe("warn");
    expect(r.byName("failing-peers").message).toContain("svc:zgone");
    expect(r.byName("failing-peers").message).toContain("connection refused");
    expect(r.byName("failing-peers").message).not.toContain("svc:zflaky");
  });

  test("directories: gave up fails, retrying warns, delivered is ok", async () => {
    const dir = await makeNode();
    const dirs = ["https://a.example", "https://b.example", "https://c.example"];
    const sqlite = new Database(join(dir, "kith.db"));
    const now = Date.now();
    const push = sqlite.query("INSERT INTO directory_pushes (directory, id, action, status, attempts, next_attempt_at, last_error, remote_status, created_at) VALUES (?, ?, 'publish', ?, ?, ?, ?, ?, ?)");
    push.run(dirs[0]!, "p1", "failed", 30, now, "HTTP 500", null, now);
    push.run(dirs[1]!, "p2", "queued", 3, now, "timeout", null, now);
    push.run(dirs[2]!, "p3", "delivered", 1, now, null, "listed", now);
    sqlite.close();
    const r = await doctor(dir, { KITH_DIRECTORIES: dirs.join(",") });
    expect(r.byName(`directory ${dirs[0]}`).status).toBe("fail");
    expect(r.byName(`directory ${dirs[1]}`).status).toBe("warn");
    expect(r.byName(`directory ${dirs[2]}`)).toMatchObject({ status: "ok", message: "publish delivered: listed" });
    expectFixes(r.checks);
  });

  test("SMTP: a relay that accepts the login is ok; wrong credentials and a closed port fail; the password is never printed", async () => {
    const dir = await makeNode();
    const smtp = await startFakeSmtp("kith", "s3cret-pw");
    try {
      expect((await doctor(dir, { KITH_SMTP_URL: `smtp://kith:s3cret-pw@127.0.0.1:${smtp.port}` })).byName("smtp").status).toBe("ok");
      const wrong = await doctor(dir, { KITH_SMTP_URL: `smtp://kith:wrong-pw@127.0.0.1:${smtp.port}` });
      expect(wrong.byName("smtp").status).toBe("fail");
      expect(wrong.text).not.toContain("wrong-pw");
    } finally {
      smtp.stop();
    }
    const closed = await doctor(dir, { KITH_SMTP_URL: `smtp://kith:s3cret-pw@127.0.0.1:${await closedPort()}` });
    expect(closed.byName("smtp").status).toBe("fail");
    expect(closed.text).not.toContain("s3cret-pw");
  });

  test("LLM and transcription: answering is ok, a missing model warns, a refused key and a dead service fail", async () => {
    const dir = await makeNode();
    let status = 200;
    const api = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (new URL(req.url).pathname === "/v1/models" ? Response.json({ data: [{ id: "llama3.1" }, { id: "whisper-1" }] }, { status }) : new Response("no", { status: 404 })) });
    try {
      const base = `http://127.0.0.1:${api.port}`;
      const good = await doctor(dir, { KITH_LLM_URL: base, KITH_LLM_MODEL: "llama3.1", KITH_TRANSCRIBE_URL: `${base}/v1` });
      expect(good.byName("llm").status).toBe("ok");
      expect(good.byName("transcribe").status).toBe("ok");
      expect((await doctor(dir, { KITH_LLM_URL: base, KITH_LLM_MODEL: "mistral" })).byName("llm").status).toBe("warn");
      status = 401;
      const refused = await doctor(dir, { KITH_LLM_URL: base, KITH_LLM_MODEL: "llama3.1", KITH_LLM_API_KEY: "sk-doctor-test" });
      expect(refused.byName("llm").status).toBe("fail");
      expect(refused.text).not.toContain("sk-doctor-test");
    } finally {
      api.stop(true);
    }
    const dead = await doctor(dir, { KITH_TRANSCRIBE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(dead.byName("transcribe").status).toBe("fail");
  });
});
