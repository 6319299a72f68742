import type { Db } from "../db/client.ts";

/** Wall clock in unix milliseconds; tests inject a controllable one. */
export interface Clock {
  now(): number;
}

/** Id source (ULIDs in production, sequential in tests). */
export interface Ids {
  next(): string;
}

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/**
 * Who is asking. Each auth plugin produces exactly one variant; a verb checks it on its first line.
 */
export type Actor =
  | { kind: "owner"; subject: string }
  | { kind: "agent"; principal: string; agentId: string }
  | { kind: "public"; ip: string | null }
  | { kind: "system"; job: string };

/** The small explicit context every domain verb receives. */
export interface Ctx {
  actor: Actor;
  db: Db;
  clock: Clock;
  ids: Ids;
  log: Logger;
}

export const systemClock: Clock = { now: () => Date.now() };
