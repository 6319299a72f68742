import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { ownerPolicy } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { recordEvent } from "../internal/events.ts";
import { getPolicy } from "./get-policy.ts";
import { DEFAULT_POLICY } from "./owner-policy.ts";
import { policyView, type PolicyView } from "./internal/policy-view.ts";
import { canonicalAgents, canonicalMethod } from "./internal/principals.ts";
import { principalOf } from "../internal/principal-of.ts";
import { requireOwner } from "../internal/actors.ts";

const LIST_MAX = 200;
/** An agent id (svc:/tulpa:/ink:/key: + multibase key) or a DID, with no spaces. */
const AGENT = [/^(?:(?:svc|tulpa|ink|key):z[1-9A-HJ-NP-Za-km-z]+|did:[a-z0-9]+:[^\s]+)$/, "an agent id (svc:z…) or a DID (did:method:…)"] as const;
/** A did:web host: DNS labels, optionally a %3A-encoded port. */
const HOST = [/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?(?:%3a\d{1,5})?$/i, "a host name such as example.com"] as const;
/** An agent-id prefix such as did:web: or svc:. */
const PREFIX = [/^[a-z0-9][a-z0-9:._%-]*$/i, "an agent-id prefix such as did:web: or svc:"] as const;

const list = (name: string, itemMax: number, what: string, [pattern, shape]: readonly [RegExp, string]) =>
  v.optional(
    v.pipe(
      v.array(
        v.pipe(
          v.string(`${name}: strings`),
          v.minLength(1, `${name}: no empty entries`),
          v.maxLength(itemMax, `${name}: each at most ${itemMax} characters`),
          v.check((s: string) => pattern.test(s) && (pattern !== AGENT[0] || principalOf(s) !== null), (issue) => `${name}: ${JSON.stringify(issue.input)} is not ${shape}`),
        ),
        `${name}: an array of strings`,
      ),
      v.maxLength(LIST_MAX, `${name}: at most ${LIST_MAX} entries`),
      v.description(what),
    ),
  );

/**
 * `PUT /api/svc/policy` replaces the whole policy: a member left out goes back to its default
 * (DEFAULT_POLICY), so what was sent is what is in force.
 */
export const PolicyInput = v.strictObject(
  {
    maxAutonomyLevel: v.optional(
      v.pipe(
        v.picklist(["none", "draft_only", "auto_respond", "full"], "maxAutonomyLevel: one of none, draft_only, auto_respond, full"),
        v.description("none: receive, never act · draft_only: drafts wait for the owner (default) · auto_respond: like draft_only, trustedDids answered directly · full: act within the rules"),
      ),
    ),
    trustedDids: list("trustedDids", 512, "Agent ids / DIDs whose messages are acted on without the owner (at every level but none); stored and shown as canonical principals (key:z… for any svc:/tulpa:/ink: spelling of a key)", AGENT),
    maxInboundRate: v.optional(
      v.pipe(v.number("maxInboundRate: a number"), v.integer("maxInboundRate: an integer"), v.minValue(1, "maxInboundRate: at least 1"), v.maxValue(10_000, "maxInboundRate: at most 10000"), v.description("Inbound intents per hour per sender (default 10)")),
    ),
    acceptForeignAgents: v.optional(v.pipe(v.boolean("acceptForeignAgents: true or false"), v.description("Accept connection requests from strangers into pending approvals (default true)"))),
    allowedMethods: list("allowedMethods", 64, "Strangers' agent-id prefixes allowed to ask to connect (e.g. did:web:; svc:, tulpa:, ink: and key: all mean key-derived ids, shown as key:); empty = any", PREFIX),
    allowedHosts: list("allowedHosts", 253, "did:web hosts allowed to ask to connect (subdomains included); empty = any", HOST),
    allowedDids: list("allowedDids", 512, "When set, only these strangers may ask to connect (canonical principals, like trustedDids)", AGENT),
    blockedDids: list("blockedDids", 512, "Agents refused outright (every intent), whichever spelling of their id they send (canonical principals, like trustedDids)", AGENT),
    // Read-only: what GET answered may be sent back as it is (read, edit, write); the node sets it.
    updatedAt: v.optional(v.pipe(v.nullable(v.pipe(v.string("updatedAt: read-only, ignored"), v.maxLength(64))), v.description("Read-only (what GET answered); ignored"))),
  },
  (issue) => `unknown member ${JSON.stringify(issue.expected === "never" ? issue.input : issue.received)}; allowed: maxAutonomyLevel, trustedDids, maxInboundRate, acceptForeignAgents, allowedMethods, allowedHosts, allowedDids, blockedDids (and the read-only updatedAt)`,
);
export type PolicyInput = v.InferOutput<typeof PolicyInput>;

export function updatePolicy(ctx: Ctx, input: PolicyInput): PolicyView {
  requireOwner(ctx, "sets the policy");
  const now = ctx.clock.now();
  const d = DEFAULT_POLICY;
  const row = {
    id: 1,
    maxAutonomyLevel: input.maxAutonomyLevel ?? d.maxAutonomyLevel,
    trustedDidsJson: JSON.stringify(canonicalAgents(input.trustedDids ?? d.trustedDids)),
    maxInboundRate: input.maxInboundRate ?? d.maxInboundRate,
    acceptForeignAgents: input.acceptForeignAgents ?? d.acceptForeignAgents,
    allowedMethodsJson: JSON.stringify(dedupe((input.allowedMethods ?? d.allowedMethods).map(canonicalMethod))),
    allowedHostsJson: JSON.stringify(dedupe((input.allowedHosts ?? d.allowedHosts).map((h) => h.toLowerCase().replace(/\.+$/, "")))),
    allowedDidsJson: JSON.stringify(canonicalAgents(input.allowedDids ?? d.allowedDids)),
    blockedDidsJson: JSON.stringify(canonicalAgents(input.blockedDids ?? d.blockedDids)),
    updatedAt: now,
  };
  transaction(ctx.db, (tx) => {
    tx.insert(ownerPolicy).values(row).onConflictDoUpdate({ target: ownerPolicy.id, set: row }).run();
    recordEvent(tx, "policy.updated", now, { maxAutonomyLevel: row.maxAutonomyLevel });
  });
  return policyView(getPolicy(ctx.db));
}

const dedupe = (xs: string[]) => [...new Set(xs)];
