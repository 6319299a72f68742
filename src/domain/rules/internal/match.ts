import type { DunbarLayer } from "../../relationships/names.ts";

/** A condition on a payload member: `path` is a dot path into the payload (≤5 segments). */
export interface PayloadCondition {
  path: string;
  op: "equals" | "contains" | "exists";
  value?: string | number | boolean;
}

/** What a rule matches; every given condition must hold (an empty match matches everything). */
export interface RuleMatch {
  intents?: string[];
  /** Sender agent ids as the owner wrote them; compared as canonical principals (`senderPrincipals`). */
  senders?: string[];
  layers?: DunbarLayer[];
  payload?: PayloadCondition[];
}

export interface MatchSubject {
  intent: string;
  /** The sender's canonical principal (INK §2.2). */
  principal: string;
  /** The sender's layer in force, or null when the sender is not a connection. */
  layer: DunbarLayer | null;
  payload: Record<string, unknown>;
}

/**
 * Pure rule matching: intent, sender, the sender's layer and payload conditions, all required.
 * `senderPrincipals` are the rule's senders normalized once when the rule was written.
 */
export function matchesRule(match: RuleMatch, senderPrincipals: string[], subject: MatchSubject): boolean {
  if (match.intents && match.intents.length > 0 && !match.intents.includes(subject.intent)) return false;
  if (senderPrincipals.length > 0 && !senderPrincipals.includes(subject.principal)) return false;
  if (match.layers && match.layers.length > 0 && (subject.layer === null || !match.layers.includes(subject.layer))) return false;
  return (match.payload ?? []).every((c) => holds(c, valueAt(subject.payload, c.path)));
}

/** The value at a dot path (`a.b.c`); undefined when any step is missing or not an object. */
export function valueAt(payload: Record<string, unknown>, path: string): unknown {
  let current: unknown = payload;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function holds(c: PayloadCondition, actual: unknown): boolean {
  switch (c.op) {
    case "exists":
      return actual !== undefined && actual !== null;
    case "equals":
      return actual === c.value;
    case "contains": {
      if (c.value === undefined) return false;
      const needle = String(c.value).toLowerCase();
      if (typeof actual === "string") return actual.toLowerCase().includes(needle);
      if (Array.isArray(actual)) return actual.some((x) => (typeof x === "string" ? x.toLowerCase() === needle : x === c.value));
      return false;
    }
  }
}
