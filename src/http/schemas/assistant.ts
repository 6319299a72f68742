import * as v from "valibot";
import { RuleActionInput, RuleMatchInput } from "../../domain/rules/rule-input.ts";

/** Record shapes of the owner's assistant routes, for the OpenAPI document. */

export const NoteDoc = v.pipe(
  v.object({ id: v.string(), connectionId: v.string(), text: v.string(), createdAt: v.string() }),
  v.description("Relationship note (private to the owner)"),
);

export const PolicyDoc = v.pipe(
  v.object({
    maxAutonomyLevel: v.picklist(["none", "draft_only", "auto_respond", "full"]),
    trustedDids: v.array(v.string()),
    maxInboundRate: v.number(),
    acceptForeignAgents: v.boolean(),
    allowedMethods: v.array(v.string()),
    allowedHosts: v.array(v.string()),
    allowedDids: v.array(v.string()),
    blockedDids: v.array(v.string()),
    updatedAt: v.pipe(v.nullable(v.string()), v.description("null while the defaults are in force")),
  }),
  v.description("The owner's autonomy and foreign-sender policy"),
);

export const RuleDoc = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    enabled: v.boolean(),
    priority: v.number(),
    match: RuleMatchInput,
    action: RuleActionInput,
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
  v.description("Automation rule"),
);

export const RuleRunDoc = v.pipe(
  v.object({
    id: v.string(),
    ruleId: v.string(),
    message: v.object({ id: v.nullable(v.string()), messageId: v.string() }),
    action: v.picklist(["auto_respond", "decline", "hold", "label"]),
    outcome: v.pipe(v.string(), v.description("labeled, held, already_held, sent, drafted, rejected, suggested, suppressed, skipped, failed")),
    detail: v.nullable(v.record(v.string(), v.unknown())),
    createdAt: v.string(),
  }),
  v.description("One action a rule took on a message"),
);

const ProfileSnapshotBody = v.object({
  headline: v.string(),
  skills: v.array(v.string()),
  interests: v.array(v.string()),
  openTo: v.array(v.string()),
  availability: v.optional(v.object({ timezone: v.string(), meetingHours: v.optional(v.string()), responseSla: v.optional(v.string()) })),
});

export const ProfileSnapshotDoc = v.pipe(
  v.object({ scope: v.string(), snapshot: ProfileSnapshotBody, updatedAt: v.string() }),
  v.description("Profile snapshot of a scope (INK ProfileSnapshot)"),
);

const backend = {
  backend: v.pipe(v.picklist(["llm", "builtin"]), v.description("Which produced the answer")),
  model: v.optional(v.pipe(v.string(), v.description("The LLM's model (backend llm)"))),
  fallbackReason: v.optional(v.pipe(v.string(), v.description("Why the built-in answered although an LLM is configured"))),
};

export const DraftDoc = v.pipe(
  v.object({
    messageId: v.pipe(v.string(), v.description("Envelope id of the message answered")),
    draft: v.object({ intent: v.string(), payload: v.record(v.string(), v.unknown()), note: v.pipe(v.string(), v.description("For the owner: what to check before sending")) }),
    ...backend,
  }),
  v.description("A drafted response (send it with /respond)"),
);

export const SummaryDoc = v.pipe(v.object({ conversationId: v.string(), messageCount: v.number(), summary: v.string(), ...backend }), v.description("Thread summary"));

export const TranscriptDoc = v.object({ transcript: v.string() });
