import { resolve } from "node:path";
import { openDatabase, type Db } from "../db/client.ts";
import { readStoredSettings } from "../domain/node/read-stored-settings.ts";
import { CliError, cliName, UsageError, type Command, type Io } from "./command.ts";
import { requireNode } from "./data-dir.ts";
import { checkOpenAi, checkSmtp } from "./doctor/backend-checks.ts";
import { doctorLimits, fail, guarded, ok, skip, warn, type CheckResult, type DoctorContext } from "./doctor/check.ts";
import { checkDisk, checkFiles, checkIntegrity, checkSchema, checkWal } from "./doctor/local-checks.ts";
import { checkPublicFace } from "./doctor/public-checks.ts";
import { checkDirectories, checkFailingPeers, checkOutbox } from "./doctor/queue-checks.ts";
import { configFrom } from "./init.ts";
import { dataPaths } from "./paths.ts";
import { isServeRunning } from "./serve-lock.ts";

export const doctorCommand: Command = {
  name: "doctor",
  summary:
    "Check the node and say what to fix: data directory and key file permissions, free disk, database integrity, WAL size, " +
    "schema version, the public URL, the card served there (fetched as a peer would), its TLS certificate, the clock, the outbox, " +
    "failing peers, directories, SMTP and the LLM and transcription services. Exit 0 when no check fails, 1 otherwise. " +
    "Runs beside a running node (it reads, never locks); run it with the node's settings (the same environment).",
  usage: "kith doctor [--data-dir D] [--json]",
  options: {
    "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
    json: { type: "boolean", description: "One JSON object on stdout instead of lines" },
  },
  async run(values, io) {
    const limits = doctorLimits(io.env);
    if ("error" in limits) throw new UsageError(limits.error);
    const report = await diagnose(values, io, limits);
    const failed = report.checks.some((c) => c.status === "fail");
    if (values.json) io.out(JSON.stringify({ ok: !failed, ...report }));
    else for (const line of render(report)) io.out(line);
    return failed ? 1 : 0;
  },
};

interface Report {
  dataDir: string;
  running: boolean;
  checks: CheckResult[];
}

async function diagnose(values: Record<string, string | boolean | undefined>, io: Io, limits: DoctorContext["limits"]): Promise<Report> {
  const checks: CheckResult[] = [];
  let pre;
  try {
    pre = configFrom(values, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    // A bad setting is a finding, not a crash: the data directory is still examined.
    checks.push(fail("settings", e.message, "correct that setting where the node gets it (environment file, unit, flags)"));
  }
  const dataDir = pre?.dataDir ?? resolve(io.cwd, (values["data-dir"] as string | undefined) ?? io.env.KITH_DATA_DIR ?? "./kith-data");
  const paths = dataPaths(dataDir);
  try {
    requireNode(paths);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    return { dataDir, running: false, checks: [...checks, fail("data-dir", e.message, "pass the node's data directory: kith doctor --data-dir <dir> (or KITH_DATA_DIR)")] };
  }
  let running = false;
  try {
    running = isServeRunning(paths);
    checks.push(running ? ok("node", "kith serve is running on this data directory") : warn("node", "no kith serve is running on this data directory", `start it: ${cliName()} serve (or systemctl start kith)`));
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    checks.push(fail("node", e.message, `remove ${paths.lock} (${cliName()} serve makes it again) and start the node`));
  }
  let db: Db | null = null;
  try {
    db = openDatabase(paths.db); // no migration, no lock: a reader beside the node (WAL)
  } catch (e) {
    checks.push(fail("database", `${paths.db} cannot be opened: ${e instanceof Error ? e.message : String(e)}`, `check the file's owner and mode, or restore a backup (${cliName()} restore)`));
  }
  try {
    let stored: Record<string, string> = {};
    try {
      if (db) stored = readStoredSettings(db);
    } catch {
      // a damaged or foreign database: the integrity and schema lines say so
    }
    const local = { paths, db, now: Date.now(), limits };
    checks.push(...(await guarded("files", () => checkFiles(local))));
    checks.push(...(await guarded("disk", () => checkDisk(local))));
    checks.push(...(await guarded("database", () => checkIntegrity(local))));
    checks.push(...(await guarded("wal", () => checkWal(local))));
    checks.push(...(await guarded("schema", () => checkSchema(local))));
    if (!pre) return { dataDir, running, checks: [...checks, skip("network", "settings are invalid; network checks not run")] };
    let config;
    try {
      config = configFrom(values, io, stored);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      return { dataDir, running, checks: [...checks, fail("settings", e.message, "correct the stored setting: kith init … or the flag/variable that overrides it")] };
    }
    const ctx: DoctorContext = { ...local, config };
    const publicUrlConfigured = !!io.env.KITH_PUBLIC_URL || stored.public_url !== undefined;
    const [face, smtp, llm, transcribe] = await Promise.all([
      guarded("card", () => checkPublicFace({ ...ctx, publicUrlConfigured })),
      guarded("smtp", () => checkSmtp(ctx)),
      guarded("llm", () => checkOpenAi(ctx, "llm")),
      guarded("transcribe", () => checkOpenAi(ctx, "transcribe")),
    ]);
    checks.push(...face);
    checks.push(...(await guarded("outbox", () => checkOutbox(ctx))));
    checks.push(...(await guarded("failing-peers", () => checkFailingPeers(ctx))));
    checks.push(...(await guarded("directories", () => checkDirectories(ctx))));
    checks.push(...smtp, ...llm, ...transcribe);
    return { dataDir, running, checks };
  } finally {
    db?.$client.close(); // not closeDatabase: its PRAGMA optimize may write beside the running node
  }
}

function render(report: Report): string[] {
  const lines = [`kith doctor: ${report.dataDir}`];
  const width = Math.max(...report.checks.map((c) => c.name.length));
  for (const c of report.checks) {
    lines.push(`  ${c.status.toUpperCase().padEnd(4)}  ${c.name.padEnd(width)}  ${c.message}`);
    if (c.fix) lines.push(`  ${"".padEnd(4)}  ${"".padEnd(width)}  fix: ${c.fix}`);
  }
  const count = (s: CheckResult["status"]) => report.checks.filter((c) => c.status === s).length;
  lines.push(`${count("ok")} ok, ${count("warn")} warning(s), ${count("fail")} failure(s), ${count("skip")} skipped`);
  return lines;
}
