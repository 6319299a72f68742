import * as v from "valibot";
import type { rules } from "../../db/schema/index.ts";
import { isRegisteredIntent, normalizePrincipal, validateIntentPayload } from "../../ink/index.ts";
import { invalidInput } from "../errors.ts";
import { RESPONSE_OF } from "../internal/response-intents.ts";
import { DUNBAR_LAYERS } from "../relationships/names.ts";
import type { RuleMatch } from "./internal/match.ts";
import { unknownPlaceholders } from "./internal/template.ts";

export const MAX_RULES = 200;
const TEMPLATE_MAX_BYTES = 10_000;
const LABEL = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const strings = (name: string, max: number, itemMax: number) =>
  v.pipe(
    v.array(v.pipe(v.string(`${name}: strings`), v.minLength(1, `${name}: no empty entries`), v.maxLength(itemMax, `${name}: each at most ${itemMax} characters`)), `${name}: an array`),
    v.maxLength(max, `${name}: at most ${max} entries`),
  );

export const PayloadConditionInput = v.strictObject({
  path: v.pipe(
    v.string("payload[].path: a string"),
    v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,4}$/, "payload[].path: a dot path of at most 5 member names, e.g. question or availability.timezone"),
  ),
  op: v.picklist(["equals", "contains", "exists"], "payload[].op: one of equals, contains, exists"),
  value: v.optional(v.union([v.pipe(v.string(), v.maxLength(500, "payload[].value: at most 500 characters")), v.number(), v.boolean()], "payload[].value: a string, number or boolean")),
});

export const RuleMatchInput = v.pipe(
  v.strictObject({
    intents: v.optional(v.pipe(strings("match.intents", 15, 253), v.description("The message's intent is one of these"))),
    senders: v.optional(v.pipe(strings("match.senders", 200, 512), v.description("The sender is one of these agent ids"))),
    layers: v.optional(v.pipe(v.array(v.picklist(DUNBAR_LAYERS, `match.layers: each one of ${DUNBAR_LAYERS.join(", ")}`)), v.maxLength(5), v.description("The sender's Dunbar layer is one of these"))),
    payload: v.optional(v.pipe(v.array(PayloadConditionInput), v.maxLength(10, "match.payload: at most 10 conditions"), v.description("Conditions on payload members, all required"))),
  }),
  v.description("Which inbound messages; every given condition must hold, an empty match matches every message"),
);

export const RuleActionInput = v.pipe(
  v.variant(
    "type",
    [
      v.strictObject({
        type: v.literal("auto_respond"),
        template: v.pipe(v.record(v.string(), v.unknown()), v.description("Payload of the matching _response; strings may hold {{sender.displayName}}, {{payload.question}}, …")),
      }),
      v.strictObject({ type: v.literal("decline"), note: v.optional(v.pipe(v.string(), v.maxLength(1000, "action.note: at most 1000 characters"))) }),
      v.strictObject({ type: v.literal("hold"), reason: v.optional(v.pipe(v.string(), v.maxLength(500, "action.reason: at most 500 characters"))) }),
      v.strictObject({
        type: v.literal("label"),
        labels: v.pipe(
          v.array(v.pipe(v.string(), v.regex(LABEL, "action.labels: lower-case letters, digits, _ and -, at most 32"))),
          v.minLength(1, "action.labels: at least one"),
          v.maxLength(10, "action.labels: at most 10"),
        ),
      }),
    ],
    "action.type: one of auto_respond, decline, hold, label",
  ),
  v.description("auto_respond: answer with the template · decline: the declining _response (or reject) · hold: wait for the owner · label: tag the message (does not stop later rules)"),
);
export type RuleAction = v.InferOutput<typeof RuleActionInput>;

const name = v.pipe(v.string("name: a string"), v.transform((s) => s.trim()), v.minLength(1, "name: must not be empty"), v.maxLength(100, "name: at most 100 characters"));
const priority = v.pipe(v.number("priority: a number"), v.integer("priority: an integer"), v.minValue(0, "priority: 0 to 1000"), v.maxValue(1000, "priority: 0 to 1000"), v.description("Lower runs first (default 100); ties in creation order"));
const enabled = v.pipe(v.boolean("enabled: true or false"), v.description("Disabled rules are kept but never run"));

export const CreateRuleInput = v.strictObject({ name, enabled: v.optional(enabled), priority: v.optional(priority), match: RuleMatchInput, action: RuleActionInput });
export type CreateRuleInput = v.InferOutput<typeof CreateRuleInput>;

export const UpdateRuleInput = v.strictObject({ name: v.optional(name), enabled: v.optional(enabled), priority: v.optional(priority), match: v.optional(RuleMatchInput), action: v.optional(RuleActionInput) });
export type UpdateRuleInput = v.InferOutput<typeof UpdateRuleInput>;

/**
 * What the schema cannot say: intents are INK's, senders are agent ids, an auto_respond rule
 * names exactly one request intent and its template is a valid payload of that intent's
 * `_response` (placeholders rendered as ""), decline/auto_respond leave connection requests to
 * the connection flow. Returns the senders' canonical principals.
 */
export function checkRule(match: RuleMatch, action: RuleAction): string[] {
  for (const intent of match.intents ?? []) if (!isRegisteredIntent(intent)) throw invalidInput(`match.intents: ${JSON.stringify(intent)} is not one of the 15 INK intents`);
  const principals = (match.senders ?? []).map((s) => {
    const p = normalizePrincipal(s);
    const agentLike = p.ok && (p.principal.startsWith("key:") || /^did:[a-z0-9]+:[^\s]+$/.test(p.principal));
    if (!p.ok || !agentLike) throw invalidInput(`match.senders: ${JSON.stringify(s.slice(0, 80))} is not an agent id (svc:z…, tulpa:z…, ink:z… or a DID)`);
    return p.principal;
  });
  const answering = action.type === "auto_respond" || action.type === "decline";
  if (answering && match.intents?.includes("connection_request")) {
    throw invalidInput(`action.type: ${action.type} does not answer connection requests; accept or decline them through the connection (PATCH /api/svc/connections/:id) or its pending action`);
  }
  if (action.type === "auto_respond") {
    const intent = match.intents?.length === 1 ? match.intents[0]! : null;
    const response = intent ? RESPONSE_OF[intent] : undefined;
    if (!intent || !response) throw invalidInput(`match.intents: an auto_respond rule names exactly one intent that has a response (${Object.keys(RESPONSE_OF).filter((i) => i !== "connection_request").join(", ")})`);
    if (new TextEncoder().encode(JSON.stringify(action.template)).length > TEMPLATE_MAX_BYTES) throw invalidInput(`action.template: at most ${TEMPLATE_MAX_BYTES} bytes of JSON`);
    const unknown = unknownPlaceholders(action.template);
    if (unknown.length > 0) throw invalidInput(`action.template: unknown placeholder {{${unknown[0]}}}; use sender.displayName, sender.handle, sender.agentId, owner.displayName, owner.handle, message.intent, message.id or payload.<member>`);
    const sample = JSON.parse(JSON.stringify(action.template).replace(/\{\{[^}]*\}\}/g, ""));
    const valid = validateIntentPayload(response, sample);
    if (!valid.ok) throw invalidInput(`action.template: not a valid ${response} payload: ${valid.issue ?? "schema mismatch"}`);
  }
  return principals;
}

export interface RuleView {
  id: string;
  name: string;
  enabled: boolean;
  priority: number;
  match: RuleMatch;
  action: RuleAction;
  createdAt: string;
  updatedAt: string;
}

export interface StoredMatch extends RuleMatch {
  /** Canonical principals of `senders`, computed when the rule was written. */
  senderPrincipals?: string[];
}

export function ruleView(row: typeof rules.$inferSelect): RuleView {
  const { senderPrincipals: _p, ...match } = JSON.parse(row.matchJson) as StoredMatch;
  return { id: row.id, name: row.name, enabled: row.enabled, priority: row.priority, match, action: JSON.parse(row.actionJson) as RuleAction, createdAt: new Date(row.createdAt).toISOString(), updatedAt: new Date(row.updatedAt).toISOString() };
}
