import { REGISTERED_INTENTS, type RegisteredIntent } from "../../../ink/intents.ts";
import type { AutonomyTier } from "../../../security/extension-token.ts";

/** The permissions an installation can hold (SPEC "Extension concepts", EXTENSIONS §1.7). An unknown name grants nothing. */
export const EXTENSION_PERMISSIONS = [
  "connections:list",
  "layers:read",
  "graph:read:clusters:summary",
  "graph:read:clusters:members",
  "graph:read:bridges",
  "events:subscribe",
  "profile:read",
  "intents:send",
  "agent.chat",
] as const;
export type ExtensionPermission = (typeof EXTENSION_PERMISSIONS)[number];

/** Permissions that reveal contacts: asking for one requires `layers` in the manifest. */
export const CONTACT_PERMISSIONS: readonly ExtensionPermission[] = [
  "connections:list",
  "layers:read",
  "graph:read:clusters:summary",
  "graph:read:clusters:members",
  "graph:read:bridges",
  "intents:send",
];

/**
 * The autonomy tier of each intent an extension may send (docs/decisions/extensions.md):
 * transactional = no relationship at stake (liveness, answers, shared context, retracting its
 * own), social = asks something of the other person, personal = changes the relationship or
 * brings third parties in.
 */
export const INTENT_TIERS: Record<RegisteredIntent, AutonomyTier> = {
  ping: "transactional",
  ask_response: "transactional",
  schedule_meeting_response: "transactional",
  intro_response: "transactional",
  opportunity_response: "transactional",
  connection_response: "transactional",
  context_share: "transactional",
  retract: "transactional",
  ask: "social",
  follow_up: "social",
  schedule_meeting: "social",
  opportunity: "social",
  connection_request: "personal",
  intro_request: "personal",
  multi_party_sync: "personal",
};

export const EXTENSION_INTENTS: readonly RegisteredIntent[] = REGISTERED_INTENTS;
