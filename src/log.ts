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

export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * One JSON object per line: `{"time","level","msg",...fields}`; or, with `format: "pretty"`, the
 * same entry as one line a person reads (prettyLine). Redaction is the same in both.
 */
export function createJsonLogger(options: {
  level: LogLevel;
  format?: LogFormat;
  write?: (line: string) => void;
  now?: () => number;
  base?: LogFields;
}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line + "\n"));
  const now = options.now ?? Date.now;
  const min = RANK[options.level];
  // Lines come many to a millisecond under load: the timestamp text is made once per millisecond.
  let lastMs = NaN;
  let lastTime = "";
  const timeOf = (ms: number): string => (ms === lastMs ? lastTime : ((lastMs = ms), (lastTime = new Date(ms).toISOString())));
  const make = (base: LogFields): Logger => {
    const hasBase = Object.keys(base).length > 0;
    const emit = (level: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
      if (RANK[level] < min) return;
      const entry = { time: timeOf(now()), level, msg, ...(hasBase ? redact(base) : undefined), ...(fields ? redact(fields) : undefined) };
      write(options.format === "pretty" ? prettyLine(entry) : safeStringify(entry));
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

/**
 * `12:00:01.250 INFO  request GET /health 200 1.2ms reqId=…`: the clock time, the level, the
 * message, a request's method, path, status and duration in place, then the other fields as
 * key=value (strings quoted only when they hold spaces or quotes, objects as JSON).
 */
export function prettyLine(entry: Record<string, unknown>): string {
  const { time, level, msg, method, path, status, ms, ...rest } = entry;
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const head = [clock, String(level).toUpperCase().padEnd(5), String(msg)];
  if (msg === "request") head.push(String(method), String(path), String(status), ms === undefined ? "" : `${String(ms)}ms`);
  else for (const [k, v] of Object.entries({ method, path, status, ms })) if (v !== undefined) rest[k] = v;
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${prettyValue(v)}`);
  return [...head, ...fields].filter((p) => p !== "").join(" ");
}

function prettyValue(v: unknown): string {
  if (typeof v === "string") return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (v !== null && typeof v === "object") return safeStringify(v);
  return String(v);
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
    for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) ? "[redacted]" : redactValue(v, depth + 1);
    return out;
  }
  return value;
}

/** Field names already judged (every request line names the same few); bounded, as names may come from data. */
const judged = new Map<string, boolean>();

function isSecretName(name: string): boolean {
  let secret = judged.get(name);
  if (secret === undefined) {
    secret = SECRET_NAMES.has(name.toLowerCase().replace(/[-_]/g, ""));
    if (judged.size < 1024) judged.set(name, secret);
  }
  return secret;
}

function safeStringify(entry: object): string {
  try {
    // Without a replacer first: a replacer is a call per value (most of a line's cost); only a
    // BigInt makes the plain form throw, and the replacer changes nothing else.
    return JSON.stringify(entry);
  } catch {
    try {
      return JSON.stringify(entry, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    } catch {
      return JSON.stringify({ level: "error", msg: "unserializable log entry" });
    }
  }
}
