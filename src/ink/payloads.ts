// Strict per-intent payload schemas (INK §3.3 table, §15 connection payloads).
// Caps are UTF-16 units: timestamps ≤64, ids ≤256, DIDs ≤512, URLs ≤2048.
import * as v from "valibot";
import { REGISTERED_INTENTS } from "./intents.ts";
import { check, httpUrl, nonNegativeInt, str, strict } from "./schema-kit.ts";

const ts = str(64);
const list = <S extends v.GenericSchema>(item: S, max: number, min = 0) =>
  v.pipe(v.array(item), v.minLength(min), v.maxLength(max));

/** Availability inside a profile snapshot (strict, INK §15). */
export const ProfileAvailability = strict({
  timezone: str(64),
  meetingHours: v.optional(str(200)),
  responseSla: v.optional(str(200)),
});
export type ProfileAvailability = v.InferOutput<typeof ProfileAvailability>;

/** Profile snapshot (strict; arrays may be empty but must be present, INK §15). */
export const ProfileSnapshot = strict({
  headline: str(500),
  skills: list(str(100), 50),
  interests: list(str(100), 50),
  openTo: list(str(100), 20),
  availability: v.optional(ProfileAvailability),
});
export type ProfileSnapshot = v.InferOutput<typeof ProfileSnapshot>;

export const ConnectionRequestPayload = strict({
  method: v.picklist(["qr", "intro", "discovery", "import"]),
  introducedBy: v.optional(str(512)),
  context: str(2000),
  profileSnapshot: ProfileSnapshot,
});
export type ConnectionRequestPayload = v.InferOutput<typeof ConnectionRequestPayload>;

export const ConnectionResponsePayload = strict({
  status: v.picklist(["accepted", "declined", "pending"]),
  profileSnapshot: v.optional(ProfileSnapshot),
  note: v.optional(str(1000)),
});
export type ConnectionResponsePayload = v.InferOutput<typeof ConnectionResponsePayload>;

export const ScheduleMeetingPayload = strict({
  proposedTimes: list(ts, 10, 1),
  topic: str(500),
  format: v.picklist(["video", "phone", "in_person", "async"]),
  urgency: v.picklist(["low", "normal", "urgent"]),
  context: v.optional(str(2000)),
  location: v.optional(str(500)),
});

export const ScheduleMeetingResponsePayload = strict({
  status: v.picklist(["accepted", "declined", "countered"]),
  confirmedTime: v.optional(ts),
  counterTimes: v.optional(list(ts, 10)),
  meetingLink: v.optional(httpUrl),
  note: v.optional(str(1000)),
  declineReason: v.optional(v.picklist(["unavailable", "not_interested", "too_busy", "deferred"])),
});

export const IntroRequestPayload = strict({
  target: str(512),
  reason: str(2000),
  context: v.optional(str(2000)),
  urgency: v.picklist(["low", "normal"]),
});

export const IntroResponsePayload = strict({
  status: v.picklist(["forwarded", "declined", "pending_target"]),
  note: v.optional(str(1000)),
  targetResponse: v.optional(v.picklist(["accepted", "declined", "pending"])),
});

export const OpportunityPayload = strict({
  type: v.picklist(["role", "investment", "collaboration", "advisory", "event", "other"]),
  title: str(500),
  org: v.optional(str(200)),
  description: str(5000),
  matchReason: str(2000),
  expiresAt: v.optional(ts),
  url: v.optional(httpUrl),
});

export const OpportunityResponsePayload = strict({
  status: v.picklist(["interested", "not_interested", "maybe_later"]),
  note: v.optional(str(1000)),
  followUpIntent: v.optional(v.picklist(REGISTERED_INTENTS)),
});

export const FollowUpPayload = strict({
  referenceId: str(256),
  message: str(5000),
  actionRequested: v.optional(v.picklist(["reply", "schedule", "review", "none"])),
});

export const AskPayload = strict({
  question: str(5000),
  context: v.optional(str(2000)),
  responseFormat: v.optional(v.picklist(["text", "choice"])),
  choices: v.optional(list(str(500), 10)),
  deadline: v.optional(ts),
});

export const AskResponsePayload = strict({
  answer: str(5000),
  choiceIndex: v.optional(nonNegativeInt),
});

export const PingPayload = strict({ note: v.optional(str(1000)) });

export const RetractPayload = strict({
  targetMessageId: str(256),
  reason: v.optional(str(1000)),
});

export const ContextSharePayload = strict({
  context: str(5000),
  category: v.picklist(["professional_background", "project_update", "expertise", "availability", "general"]),
  referenceId: v.optional(str(256)),
  expiresAt: v.optional(ts),
});

export const MultiPartySyncPayload = strict({
  enclaveType: v.picklist(["meeting_sync"]),
  purpose: str(500),
  participants: list(str(512), 20, 2),
  expiresAt: ts,
});

/** Strict payload schema of every registered intent (INK §3.3). */
export const INTENT_PAYLOAD_SCHEMAS = {
  schedule_meeting: ScheduleMeetingPayload,
  schedule_meeting_response: ScheduleMeetingResponsePayload,
  intro_request: IntroRequestPayload,
  intro_response: IntroResponsePayload,
  opportunity: OpportunityPayload,
  opportunity_response: OpportunityResponsePayload,
  follow_up: FollowUpPayload,
  ask: AskPayload,
  ask_response: AskResponsePayload,
  connection_request: ConnectionRequestPayload,
  connection_response: ConnectionResponsePayload,
  context_share: ContextSharePayload,
  ping: PingPayload,
  retract: RetractPayload,
  multi_party_sync: MultiPartySyncPayload,
} as const;

export type PayloadCheck = { ok: true } | { ok: false; reason: "invalid_payload"; issue: string };

/**
 * Validate a payload for an intent: registered intents get their strict schema; a well-formed
 * unregistered (vendor) intent only needs a JSON object payload, which the envelope already ensures.
 */
export function validateIntentPayload(intent: string, payload: unknown): PayloadCheck {
  const schema = (INTENT_PAYLOAD_SCHEMAS as Record<string, v.GenericSchema>)[intent];
  if (schema === undefined || !Object.prototype.hasOwnProperty.call(INTENT_PAYLOAD_SCHEMAS, intent)) return { ok: true };
  const r = check(schema, payload);
  return r.ok ? { ok: true } : { ok: false, reason: "invalid_payload", issue: r.issue };
}

/**
 * Category `connection-payload`: validate a payload as `connection_request` or
 * `connection_response`; any other kind rejects.
 */
export function validateConnectionPayload(kind: unknown, payload: unknown): PayloadCheck {
  if (kind === "connection_request") return validateIntentPayload(kind, payload);
  if (kind === "connection_response") return validateIntentPayload(kind, payload);
  return { ok: false, reason: "invalid_payload", issue: "unknown connection payload kind" };
}
