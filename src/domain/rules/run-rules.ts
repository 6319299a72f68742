import { and, asc, eq } from "drizzle-orm";
import { relaxedTransaction, transaction, type Tx } from "../../db/client.ts";
import { prepared } from "../../db/prepared.ts";
import { connections, messageLabels, messages, pendingActions, ruleRuns, rules } from "../../db/schema/index.ts";
import { validateIntentPayload } from "../../ink/index.ts";
import type { Ctx, With } from "../context.ts";
import { eventsAfter, lastEventSeq, readCursor, writeCursor, type EventRow } from "../internal/events.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { RESPONSE_OF } from "../internal/response-intents.ts";
import { type MessageRow } from "../internal/message-rows.ts";
import { recordEvent } from "../internal/events.ts";
import { enqueueOutbound } from "../messages/enqueue-outbound.ts";
import { getPolicy } from "../policy/get-policy.ts";
import { type OwnerPolicy } from "../policy/owner-policy.ts";
import { matchesRule } from "./internal/match.ts";
import { ruleView, type RuleView, type StoredMatch } from "./internal/rule-view.ts";
import { declinePayload, renderTemplate } from "./internal/template.ts";

const CURSOR = "rules";
const BATCH = 100;

interface LoadedRule extends RuleView {
  createdAtMs: number;
  senderPrincipals: string[];
}

interface Outcome {
  outcome: "labeled" | "held" | "already_held" | "sent" | "drafted" | "rejected" | "suggested" | "suppressed" | "skipped" | "failed";
  detail?: Record<string, unknown>;
  /** A terminal outcome ends the evaluation of this message (first terminal action wins). */
  terminal: boolean;
  queued?: boolean;
}

/**
 * The automation job: reads committed `message.received` events after its cursor and runs the
 * enabled rules on each inbound message, in priority order, in one transaction per message that
 * also records every action (rule_runs) and moves the cursor — so each message is handled once,
 * after commit, even across a crash. Stops early when `shouldYield` says so. Returns how many
 * messages were looked at and whether events remain.
 *
 * Autonomy (PRODUCT-SURFACE §3) bounds what a rule may do: at `full`, or for a sender in
 * `trustedDids`, auto_respond and decline send; below `full` the reply is drafted into the
 * message's pending action (approving it sends); at `none` nothing is sent or drafted, only
 * labels and holds apply.
 */
export function runRules(ctx: With<"wake">, shouldYield: () => boolean = () => false): { seen: number; more: boolean } {
  let seen = 0;
  let queued = false;
  let more = false;
  for (;;) {
    const loaded = loadRules(ctx);
    if (loaded.length === 0) {
      // No enabled rule: nothing to do up to the newest event (a rule never applies retroactively).
      const newest = lastEventSeq(ctx.db);
      if (newest > readCursor(ctx.db, CURSOR)) relaxedTransaction(ctx.db, (tx) => writeCursor(tx, CURSOR, newest, ctx.clock.now()));
      break;
    }
    const after = readCursor(ctx.db, CURSOR);
    const batch = eventsAfter(ctx.db, after, BATCH);
    if (batch.length === 0) break;
    const policy = getPolicy(ctx.db);
    let last = after;
    for (const event of batch) {
      if (event.type === "message.received") {
        seen++;
        try {
          queued = transaction(ctx.db, (tx) => {
            const q = processMessage(tx, ctx, event, loaded, policy);
            writeCursor(tx, CURSOR, event.seq, ctx.clock.now());
            return q;
          }) || queued;
        } catch (e) {
          // Rolled back, nothing half done; skip the message rather than retry it forever.
          ctx.log.error("rules failed on a message; skipped", { event: event.seq, message: event.subjectId, cause: e });
        }
      }
      last = event.seq;
      if (shouldYield()) {
        more = true;
        break;
      }
    }
    // Past the batch's last message, only events no rule acts on: every message above committed
    // its own cursor with what it did (FULL), so redoing this move after a power loss is harmless.
    relaxedTransaction(ctx.db, (tx) => writeCursor(tx, CURSOR, last, ctx.clock.now()));
    if (more) break;
  }
  if (queued) ctx.wake.outbox();
  return { seen, more };
}

/** The enabled rules in order, through a query prepared once per connection (the job asks on every pass). */
function loadRules(ctx: Ctx): LoadedRule[] {
  return prepared(ctx.db, "rules-enabled", (d) => d.select().from(rules).where(eq(rules.enabled, true)).orderBy(asc(rules.priority), asc(rules.createdAt), asc(rules.id)).prepare())
    .all()
    .map((row) => ({ ...ruleView(row), createdAtMs: row.createdAt, senderPrincipals: (JSON.parse(row.matchJson) as StoredMatch).senderPrincipals ?? [] }));
}

function processMessage(tx: Tx, ctx: Ctx, event: EventRow, loaded: LoadedRule[], policy: OwnerPolicy): boolean {
  if (!event.peerPrincipal || !event.subjectId) return false;
  const message = tx
    .select()
    .from(messages)
    .where(and(eq(messages.direction, "in"), eq(messages.peerPrincipal, event.peerPrincipal), eq(messages.envelopeId, event.subjectId)))
    .get();
  if (!message || message.status === "retracted" || message.intent === "retract") return false;
  const connection = tx.select().from(connections).where(eq(connections.principal, message.peerPrincipal)).get() ?? null;
  const payload = JSON.parse(message.payloadJson) as Record<string, unknown>;
  const subject = { intent: message.intent, principal: message.peerPrincipal, layer: connection ? (connection.layerOverride ?? connection.layer) : null, payload };
  let queued = false;
  for (const rule of loaded) {
    // A rule applies to what arrives after it was written, never retroactively.
    if (rule.createdAtMs > message.receivedAt || !matchesRule(rule.match, rule.senderPrincipals, subject)) continue;
    const current = tx.select().from(messages).where(eq(messages.id, message.id)).get()!;
    const result = apply(tx, ctx, rule, current, payload, connection, policy);
    tx.insert(ruleRuns)
      .values({ id: `run_${ctx.ids.next()}`, ruleId: rule.id, messageId: message.id, action: rule.action.type, outcome: result.outcome, detailJson: result.detail ? JSON.stringify(result.detail) : null, createdAt: ctx.clock.now() })
      .run();
    queued ||= result.queued === true;
    if (result.terminal) break;
  }
  return queued;
}

function apply(tx: Tx, ctx: Ctx, rule: LoadedRule, message: MessageRow, payload: Record<string, unknown>, connection: typeof connections.$inferSelect | null, policy: OwnerPolicy): Outcome {
  const now = ctx.clock.now();
  const action = rule.action;
  if (action.type === "label") {
    for (const label of action.labels) tx.insert(messageLabels).values({ messageId: message.id, label, ruleId: rule.id, createdAt: now }).onConflictDoNothing().run();
    return { outcome: "labeled", detail: { labels: action.labels }, terminal: false };
  }
  if (message.status === "responded" || message.status === "rejected") return { outcome: "skipped", detail: { reason: `the message is already ${message.status}` }, terminal: false };
  if (action.type === "hold") {
    if (message.status === "pending") return { outcome: "already_held", detail: { pendingActionId: message.pendingActionId }, terminal: true };
    const id = holdForOwner(tx, ctx, message, `rule "${rule.name}": ${action.reason ?? "held for the owner"}`, null);
    return { outcome: "held", detail: { pendingActionId: id }, terminal: true };
  }
  if (message.intent === "connection_request") return { outcome: "skipped", detail: { reason: "connection requests are answered through the connection flow" }, terminal: false };
  if (message.expiresAt !== null && message.expiresAt < now) return { outcome: "skipped", detail: { reason: "the message has expired" }, terminal: false };

  let reply: { intent: string; payload: Record<string, unknown> } | null = null;
  const responseIntent = RESPONSE_OF[message.intent];
  if (action.type === "auto_respond") {
    if (!responseIntent) return { outcome: "skipped", detail: { reason: `a ${message.intent} has no response intent` }, terminal: false };
    const owner = findAgentRow(ctx.db);
    const rendered = renderTemplate(action.template, {
      sender: { agentId: message.peerAgentId, handle: connection?.handle ?? null, displayName: connection?.displayName ?? null },
      owner: { displayName: owner?.displayName ?? "", handle: owner?.handle ?? "" },
      message: { intent: message.intent, id: message.envelopeId },
      payload,
    });
    const valid = validateIntentPayload(responseIntent, rendered);
    if (!valid.ok) return { outcome: "failed", detail: { reason: `the rendered template is not a valid ${responseIntent} payload: ${valid.issue ?? "schema mismatch"}` }, terminal: false };
    reply = { intent: responseIntent, payload: rendered };
  } else {
    const declined = responseIntent ? declinePayload(message.intent, action.note) : null;
    if (declined && responseIntent) reply = { intent: responseIntent, payload: declined };
  }

  const level = autonomyFor(policy, message);
  if (level === "none") return { outcome: "suppressed", detail: { reason: "autonomy level none: the agent never acts", ...(reply ? { reply } : {}) }, terminal: true };
  const direct = level === "full";
  if (!reply) {
    // decline without a declining response: reject the message (at full) or suggest it.
    if (direct) {
      tx.update(messages).set({ status: "rejected" }).where(eq(messages.id, message.id)).run();
      settle(tx, message, "rejected", { by: "rule", ruleId: rule.id, message: "rejected" }, now);
      return { outcome: "rejected", terminal: true };
    }
    const id = holdForOwner(tx, ctx, message, `rule "${rule.name}" suggests declining: reject to decline`, { decline: true, ruleId: rule.id, ruleName: rule.name });
    return { outcome: "suggested", detail: { pendingActionId: id, autonomy: level }, terminal: true };
  }
  if (direct) {
    const sent = enqueueOutbound(tx, ctx.ids, { peerPrincipal: message.peerPrincipal, peerAgentId: message.peerAgentId, intent: reply.intent, payload: reply.payload, correlationId: message.correlationId, inReplyTo: message.id }, now);
    tx.update(messages).set({ status: "responded", respondedAt: now }).where(eq(messages.id, message.id)).run();
    settle(tx, message, "approved", { by: "rule", ruleId: rule.id, message: "responded", response: sent.envelopeId }, now);
    return { outcome: "sent", detail: { intent: reply.intent, response: sent.envelopeId }, terminal: true, queued: true };
  }
  const id = holdForOwner(tx, ctx, message, `rule "${rule.name}" drafted a ${reply.intent}: approve to send it`, { reply, ruleId: rule.id, ruleName: rule.name });
  return { outcome: "drafted", detail: { pendingActionId: id, intent: reply.intent, autonomy: level }, terminal: true };
}

/** The level a rule acts at for this sender: trusted senders get `full`, except under `none`. */
function autonomyFor(policy: OwnerPolicy, message: MessageRow): OwnerPolicy["maxAutonomyLevel"] {
  if (policy.maxAutonomyLevel === "none") return "none";
  const trusted = policy.trustedDids.includes(message.peerPrincipal);
  return trusted ? "full" : policy.maxAutonomyLevel;
}

/**
 * Puts the message in front of the owner: its existing pending action gets the rule's proposal
 * (`action` is what approval runs), or a new inbound_intent pending action is opened.
 */
function holdForOwner(tx: Tx, ctx: Ctx, message: MessageRow, reason: string, action: Record<string, unknown> | null): string {
  const now = ctx.clock.now();
  const existing = message.pendingActionId ? tx.select().from(pendingActions).where(eq(pendingActions.id, message.pendingActionId)).get() : undefined;
  if (existing && existing.status === "pending") {
    tx.update(pendingActions).set({ reason, ...(action ? { actionJson: JSON.stringify(action) } : {}) }).where(eq(pendingActions.id, existing.id)).run();
    return existing.id;
  }
  const id = ctx.ids.next();
  tx.insert(pendingActions).values({ id, kind: "inbound_intent", status: "pending", messageId: message.id, connectionId: null, reason, actionJson: action ? JSON.stringify(action) : null, createdAt: now }).run();
  tx.update(messages).set({ status: "pending", pendingActionId: id }).where(eq(messages.id, message.id)).run();
  recordEvent(tx, "approval.requested", now, { subjectId: id, peerPrincipal: message.peerPrincipal, kind: "inbound_intent" });
  return id;
}

/** A held message the rule handled at `full`: its pending action is settled, saying the rule did it. */
function settle(tx: Tx, message: MessageRow, status: "approved" | "rejected", result: Record<string, unknown>, now: number): void {
  if (!message.pendingActionId) return;
  tx.update(pendingActions)
    .set({ status, decidedAt: now, resultJson: JSON.stringify(result) })
    .where(and(eq(pendingActions.id, message.pendingActionId), eq(pendingActions.status, "pending")))
    .run();
}
