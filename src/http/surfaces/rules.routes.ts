import * as v from "valibot";
import { getOwnerPolicy } from "../../domain/policy/get-owner-policy.ts";
import { PolicyInput, updatePolicy } from "../../domain/policy/update-policy.ts";
import { createRule, CreateRuleInput } from "../../domain/rules/create-rule.ts";
import { deleteRule } from "../../domain/rules/delete-rule.ts";
import { listRuleRuns, RuleRunsQuery } from "../../domain/rules/list-rule-runs.ts";
import { listRules, RulesQuery } from "../../domain/rules/list-rules.ts";
import { getRule } from "../../domain/rules/get-rule.ts";
import { updateRule, UpdateRuleInput } from "../../domain/rules/update-rule.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { PolicyDoc, RuleDoc, RuleRunDoc } from "../schemas/assistant.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { pageDoc } from "../schemas/federation.ts";
import { ownerApi } from "./owner.routes.ts";

/** Room for the policy's own maxima (five lists of 200 entries of up to 512 characters). */
const POLICY_MAX_BYTES = 1024 * 1024;
const IdParam = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });
const RUNS =
  "Rules run after an inbound message is committed (a background job reading the events log), enabled ones in ascending priority; the first terminal action wins (label is not terminal). " +
  "The autonomy policy bounds them: at full (or for a sender in trustedDids) auto_respond and decline send; below full the reply is drafted into the message's pending action (approve sends it); at none only labels and holds apply.";

/** Automation rules and the autonomy policy that bounds them. */
export function ruleRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (tag: string, summary: string, description: string) => ({ tags: [tag], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/policy", ({ actor }) => getOwnerPolicy(deps.ctx(actor)), {
      response: { 200: PolicyDoc, ...errors(401) },
      detail: doc("Policy", "The autonomy and foreign-sender policy", "Defaults: maxAutonomyLevel draft_only, maxInboundRate 10, acceptForeignAgents true, empty lists."),
    })
    .put("/policy", ({ actor, body }) => updatePolicy(deps.ctx(actor), body), {
      body: jsonBody(PolicyInput, { maxBytes: POLICY_MAX_BYTES }),
      response: { 200: PolicyDoc, ...errors(400, 401) },
      detail: doc(
        "Policy",
        "Replace the policy",
        "Full replace: a member left out returns to its default. maxAutonomyLevel none | draft_only | auto_respond | full (SPEC: below full the receiver holds every intent for the owner); trustedDids (≤200, each ≤512) are handled at full except under none; maxInboundRate 1–10000 per hour per sender; acceptForeignAgents, allowedMethods, allowedHosts, allowedDids, blockedDids (≤200 each): the foreign-sender policy for strangers' connection requests.",
      ),
    })
    .get("/rules", ({ actor, query }) => listRules(deps.ctx(actor), query), {
      query: RulesQuery,
      response: { 200: pageDoc(RuleDoc), ...errors(400, 401) },
      detail: doc("Rules", "Automation rules", `In the order they run. Paginated: \`limit\` (1-200, default 50) and \`cursor\`. ${RUNS}`),
    })
    .post(
      "/rules",
      ({ actor, body, set }) => {
        set.status = 201;
        return createRule(deps.ctx(actor), body);
      },
      {
        body: jsonBody(CreateRuleInput),
        response: { 201: RuleDoc, ...errors(400, 401, 409) },
        detail: doc(
          "Rules",
          "Create a rule",
          "match: intents (INK intents), senders (agent ids), layers (the sender's Dunbar layer), payload conditions {path, op: equals | contains | exists, value}. action: auto_respond {template} (the rule names exactly one request intent; the template must be a valid payload of its _response, placeholders {{sender.displayName}}, {{payload.question}}, …), decline {note?}, hold {reason?}, label {labels}. At most 200 rules (409). Applies to messages received after it was created.",
        ),
      },
    )
    .get("/rules/:id", ({ actor, params }) => getRule(deps.ctx(actor), params.id), {
      params: IdParam,
      response: { 200: RuleDoc, ...errors(401, 404) },
      detail: doc("Rules", "One rule", RUNS),
    })
    .patch("/rules/:id", ({ actor, params, body }) => updateRule(deps.ctx(actor), params.id, body), {
      params: IdParam,
      body: jsonBody(UpdateRuleInput, { update: true }),
      response: { 200: RuleDoc, ...errors(400, 401, 404) },
      detail: doc("Rules", "Update a rule", "The members given replace the rule's; match and action each as a whole, checked like on creation."),
    })
    .delete(
      "/rules/:id",
      ({ actor, params }) => {
        deleteRule(deps.ctx(actor), params.id);
        return { id: params.id, deleted: true as const };
      },
      {
        params: IdParam,
        response: { 200: v.object({ id: v.string(), deleted: v.literal(true) }), ...errors(401, 404) },
        detail: doc("Rules", "Delete a rule", "What it already did stays in its runs."),
      },
    )
    .get("/rules/:id/runs", ({ actor, params, query }) => listRuleRuns(deps.ctx(actor), params.id, query), {
      params: IdParam,
      query: RuleRunsQuery,
      response: { 200: pageDoc(RuleRunDoc), ...errors(400, 401, 404) },
      detail: doc("Rules", "What a rule did", "One record per action taken on a message: which rule, which message, the action and its outcome. Newest first; paginated."),
    });
}
