// Intent vocabulary (INK §3.3): the 15 registered names, the open intent grammar, the core and
// confidential sets, and the receiver's disposition order.

export const REGISTERED_INTENTS = [
  "schedule_meeting",
  "schedule_meeting_response",
  "intro_request",
  "intro_response",
  "opportunity",
  "opportunity_response",
  "follow_up",
  "ask",
  "ask_response",
  "connection_request",
  "connection_response",
  "context_share",
  "ping",
  "retract",
  "multi_party_sync",
] as const;

export type RegisteredIntent = (typeof REGISTERED_INTENTS)[number];

/** Every conformant receiver handles these, listed or not (INK §3.3). */
export const CORE_INTENTS: readonly RegisteredIntent[] = ["connection_request", "connection_response"];

/** Must travel encrypted; a receiver may widen this set, never narrow it (INK §3.3, ENCRYPTION §7). */
export const CONFIDENTIAL_INTENTS: readonly RegisteredIntent[] = ["schedule_meeting", "context_share", "multi_party_sync"];

const REGISTERED = new Set<string>(REGISTERED_INTENTS);
const CORE = new Set<string>(CORE_INTENTS);
const CONFIDENTIAL = new Set<string>(CONFIDENTIAL_INTENTS);

const BARE = /^[a-z][a-z0-9_]{0,62}$/;
const VENDOR_LABEL = /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/;
const MAX_VENDOR_LENGTH = 253;

export function isRegisteredIntent(intent: unknown): intent is RegisteredIntent {
  return typeof intent === "string" && REGISTERED.has(intent);
}

/**
 * The open intent grammar ([C1], vectors win): a bare name `^[a-z][a-z0-9_]{0,62}$` or a vendor
 * reverse-domain name of ≥2 dot-separated labels, ≤253 chars. Exact match: no case fold, no trim.
 */
export function isValidIntentName(intent: unknown): intent is string {
  if (typeof intent !== "string") return false;
  if (BARE.test(intent)) return true;
  if (intent.length > MAX_VENDOR_LENGTH) return false;
  const labels = intent.split(".");
  if (labels.length < 2) return false;
  for (const label of labels) if (!VENDOR_LABEL.test(label)) return false;
  return true;
}

/** Exact-string membership in the protocol set plus any receiver-widened names. */
export function isConfidentialIntent(intent: unknown, extra: readonly string[] = []): boolean {
  return typeof intent === "string" && (CONFIDENTIAL.has(intent) || (Array.isArray(extra) && extra.includes(intent)));
}

export type IntentDisposition =
  | { ok: true }
  | { ok: false; reason: "unsupported_intent" | "encryption_required" };

/**
 * Plaintext disposition in the vectors' order ([C2]): `unsupported_intent` (neither core nor
 * supported) before `encryption_required`. A non-string intent passes; the schema rejects it.
 * Never run on a decrypted inner envelope: use `isIntentSupported` there (ENCRYPTION §6 step 10).
 */
export function checkIntentDisposition(
  envelope: { intent?: unknown },
  supportedIntents: readonly string[],
  extraConfidentialIntents: readonly string[] = [],
): IntentDisposition {
  const intent = (envelope as { intent?: unknown } | null | undefined)?.intent;
  if (typeof intent !== "string") return { ok: true };
  if (!isIntentSupported(intent, supportedIntents)) return { ok: false, reason: "unsupported_intent" };
  if (isConfidentialIntent(intent, extraConfidentialIntents)) return { ok: false, reason: "encryption_required" };
  return { ok: true };
}

/** Core intents are always supported; anything else must be in the receiver's list. */
export function isIntentSupported(intent: string, supportedIntents: readonly string[]): boolean {
  return CORE.has(intent) || (Array.isArray(supportedIntents) && supportedIntents.includes(intent));
}

/** The standalone plaintext gate (category `encryption-required`): reject iff confidential. */
export function checkPlaintextConfidentiality(
  envelope: { intent?: unknown },
  extraConfidentialIntents: readonly string[] = [],
): { ok: true } | { ok: false; reason: "encryption_required" } {
  return isConfidentialIntent((envelope as { intent?: unknown } | null | undefined)?.intent, extraConfidentialIntents)
    ? { ok: false, reason: "encryption_required" }
    : { ok: true };
}
