import type { Db } from "../../db/client.ts";
import type { NodeConfig } from "../../config.ts";
import type { DataPaths } from "../paths.ts";

/**
 * One line of `kith doctor`: what was checked, how it stands, and, unless it is ok, the one thing
 * to do about it. `skip`: not configured or not applicable (never changes the exit code).
 */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

/** What the checks of the data directory read: its paths, its database (null when it cannot be opened). */
export interface LocalContext {
  paths: DataPaths;
  db: Db | null;
  now: number;
  limits: DoctorLimits;
}

/** The other checks also read the node's settings (flags, environment, stored). */
export interface DoctorContext extends LocalContext {
  config: NodeConfig;
}

/**
 * Thresholds. The disk and WAL ones are settings (KITH_DOCTOR_*, README "kith doctor") so a
 * small SD card can be judged by its own standard, and so tests can play a nearly full disk.
 */
export interface DoctorLimits {
  diskWarnBytes: number;
  diskFailBytes: number;
  walWarnBytes: number;
  /** TLS certificate: warn when it expires sooner, fail sooner still (days). */
  certWarnDays: number;
  certFailDays: number;
  /** Clock against the public URL's Date: warn past this; fail past INK's future window (§8: 30 s ahead). */
  clockWarnMs: number;
  clockFailMs: number;
  /** Outbox: warn when the oldest queued delivery is older, fail when older still (ms). */
  outboxWarnMs: number;
  outboxFailMs: number;
  /** A peer failing for longer than this is named (ms). */
  peerFailingMs: number;
  /** Deadline of each network probe (ms). */
  probeTimeoutMs: number;
}

const MB = 1024 * 1024;
const HOUR = 60 * 60 * 1000;

export const LIMIT_SETTINGS = [
  { env: "KITH_DOCTOR_DISK_WARN_MB", key: "diskWarnBytes", default: 1024, unit: MB },
  { env: "KITH_DOCTOR_DISK_FAIL_MB", key: "diskFailBytes", default: 100, unit: MB },
  { env: "KITH_DOCTOR_WAL_WARN_MB", key: "walWarnBytes", default: 64, unit: MB },
] as const;

/** The limits, with the KITH_DOCTOR_* settings applied; a bad value names the setting. */
export function doctorLimits(env: Record<string, string | undefined>): DoctorLimits | { error: string } {
  const out: DoctorLimits = {
    diskWarnBytes: 0,
    diskFailBytes: 0,
    walWarnBytes: 0,
    certWarnDays: 21,
    certFailDays: 7,
    clockWarnMs: 5_000,
    clockFailMs: 30_000,
    outboxWarnMs: HOUR,
    outboxFailMs: 12 * HOUR,
    peerFailingMs: 24 * HOUR,
    probeTimeoutMs: 10_000,
  };
  for (const s of LIMIT_SETTINGS) {
    const raw = env[s.env];
    if (raw === undefined || raw === "") {
      out[s.key] = s.default * s.unit;
      continue;
    }
    if (!/^\d{1,9}$/.test(raw.trim())) return { error: `${s.env}: ${JSON.stringify(raw)} is not a whole number of megabytes` };
    out[s.key] = Number(raw.trim()) * s.unit;
  }
  return out;
}

export const ok = (name: string, message: string): CheckResult => ({ name, status: "ok", message });
export const skip = (name: string, message: string): CheckResult => ({ name, status: "skip", message });
export const warn = (name: string, message: string, fix: string): CheckResult => ({ name, status: "warn", message, fix });
export const fail = (name: string, message: string, fix: string): CheckResult => ({ name, status: "fail", message, fix });

/** A check that throws is itself a failure, named, never a crash of the whole report. */
export async function guarded(name: string, check: () => CheckResult | CheckResult[] | Promise<CheckResult | CheckResult[]>): Promise<CheckResult[]> {
  try {
    const r = await check();
    return Array.isArray(r) ? r : [r];
  } catch (e) {
    return [fail(name, `the check itself failed: ${e instanceof Error ? e.message : String(e)}`, "run again with KITH_LOG_LEVEL=debug and report it")];
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * MB) return `${(n / (1024 * MB)).toFixed(1)} GiB`;
  if (n >= MB) return `${(n / MB).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

export function formatAge(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}
