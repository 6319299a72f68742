import * as v from "valibot";
import { DUNBAR_LAYERS } from "../relationships/names.ts";

export const MAX_RULES = 200;
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

