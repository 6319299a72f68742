import type { LogFields, Logger } from "./domain/context.ts";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/**
 * Field names whose values never reach a log line, at any depth. Matching is on the
 * lower-cased name with separators removed, so `access_token`, `accessToken` and
 * `Access-Token` are all caught.
 */
const SECRET_NAMES = new Set([
  "privatekey", "privatekeys", "secret", "secrets", "passphrase", "password", "token", "accesstoken",
  "refreshtoken", "idtoken", "authorization", "cookie", "code", "codeverifier", "apikey", "seed",
  "clientsecret", "delegationtoken",
]);

/** One JSON object per line: `{"time","level","msg",...fields}`. */
export function createJsonLogger(options: {
  level: LogLevel;
  write?: (line: string) => void;
  now?: () => number;
  base?: LogFields;
}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line + "\n"));
  const now = options.now ?? Date.now;
  const min = RANK[options.level];
  const make = (base: LogFields): Logger => {
    const emit = (level: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
      if (RANK[level] < min) return;
      const entry = { time: new Date(now()).toISOString(), level, msg, ...redact(base), ...redact(fields ?? {}) };
      write(safeStringify(entry));
    };
    return {
      debug: (m, f) => emit("debug", m, f),
      info: (m, f) => emit("info", m, f),
      warn: (m, f) => emit("warn", m, f),
      error: (m, f) => emit("error", m, f),
      child: (f) => make({ ...base, ...f }),
    };
  };
  return make(options.base ?? {});
}

export function redact(fields: LogFields): LogFields {
  return redactValue(fields, 0) as LogFields;
}

function redactValue(value: unknown, depth: number): unknown {
  if (depth > 6) return "[depth]";
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_NAMES.has(k.toLowerCase().replace(/[-_]/g, "")) ? "[redacted]" : redactValue(v, depth + 1);
    }
    return out;
  }
  return value;
}

function safeStringify(entry: object): string {
  try {
    return JSON.stringify(entry, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  } catch {
    return JSON.stringify({ level: "error", msg: "unserializable log entry" });
  }
}
