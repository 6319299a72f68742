import { isRegisteredIntent, validateIntentPayload } from "../../../ink/index.ts";
import { principalOf } from "../../internal/principal-of.ts";
import { invalidInput } from "../../internal/errors.ts";
import { RESPONSE_OF } from "../../internal/response-intents.ts";
import type { RuleMatch } from "./match.ts";
import { unknownPlaceholders } from "./template.ts";
import type { RuleAction } from "../rule-input.ts";

const TEMPLATE_MAX_BYTES = 10_000;

/**
 * What the schema cannot say: intents are INK's, senders are agent ids, an auto_respond rule
 * names exactly one request intent and its template is a valid payload of that intent's
 * `_response` (placeholders rendered as ""), decline/auto_respond leave connection requests to
 * the connection flow. Returns the senders' canonical principals.
 */
export function checkRule(match: RuleMatch, action: RuleAction): string[] {
  for (const intent of match.intents ?? []) if (!isRegisteredIntent(intent)) throw invalidInput(`match.intents: ${JSON.stringify(intent)} is not one of the 15 INK intents`);
  const principals = (match.senders ?? []).map((s) => {
    const p = principalOf(s);
    if (p === null || !(p.startsWith("key:") || /^did:[a-z0-9]+:[^\s]+$/.test(p))) throw invalidInput(`match.senders: ${JSON.stringify(s.slice(0, 80))} is not an agent id (svc:z…, tulpa:z…, ink:z…, key:z… or a DID)`);
    return p;
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
