import { and, eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction, type Tx } from "../../db/client.ts";
import { connections, messages, outbox, pendingActions } from "../../db/schema/index.ts";
import type { Ctx, With } from "../context.ts";
import { conflict, notFound } from "../internal/errors.ts";
import { connectionView, type ConnectionView } from "./internal/connection-view.ts";
import { recordEvent } from "../internal/events.ts";
import { type PeerCardUpdate } from "../peers/peer-cards.ts";
import { savePeerCard } from "../peers/save-peer-card.ts";
import { recomputeRelationship } from "../relationships/recompute-relationship.ts";
import { DUNBAR_LAYERS } from "../relationships/names.ts";
import { answerConnectionRequest } from "./answer-connection-request.ts";
import { replyRoute } from "./reply-route.ts";
import { requireOwner } from "../internal/actors.ts";

export const UpdateConnectionInput = v.strictObject({
  status: v.optional(v.pipe(v.picklist(["connected", "declined", "blocked", "disconnected"], "status: one of connected, declined, blocked, disconnected"), v.description("connected accepts a pending request, declined declines it; blocked / disconnected end it"))),
  cardUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("The peer's Agent Card URL, if the node does not know it yet (needed to reply)"))),
  layer: v.optional(
    v.pipe(
      v.nullable(v.picklist(DUNBAR_LAYERS, `layer: one of ${DUNBAR_LAYERS.join(", ")}, or null to clear the override`)),
      v.description("Override the computed Dunbar layer (sticks until cleared with null)"),
    ),
  ),
});
export type UpdateConnectionInput = v.InferOutput<typeof UpdateConnectionInput>;

type Row = typeof connections.$inferSelect;
type Target = NonNullable<UpdateConnectionInput["status"]>;

/** Which status changes the owner may make (PATCH /api/svc/connections/:id). */
const ALLOWED: Record<string, Target[]> = {
  pending: ["connected", "declined", "blocked"],
  requested: ["disconnected", "blocked"],
  connected: ["disconnected", "blocked"],
  declined: ["blocked"],
  disconnected: ["blocked"],
  contact: ["blocked"],
  blocked: ["disconnected"],
};

/**
 * Owner changes a connection: its layer override, its card URL, its status. Accepting or declining a pending request answers it with a
 * connection_response; withdrawing our own request cancels its delivery if it has not left yet;
 * blocking settles any pending request silently (a blocked sender is not told).
 */
export async function updateConnection(ctx: With<"node" | "vault" | "peers" | "wake">, id: string, input: UpdateConnectionInput): Promise<ConnectionView> {
  requireOwner(ctx, "manages connections");
  const existing = ctx.db.select().from(connections).where(eq(connections.id, id)).get();
  if (!existing) throw notFound("connection");
  // Accepting or declining a request answers it: its answer must be able to reach the peer.
  const answers = existing.status === "pending" && (input.status === "connected" || input.status === "declined");
  const learned: PeerCardUpdate | null = input.cardUrl !== undefined || answers ? await replyRoute(ctx, existing, input.cardUrl) : null;
  const now = ctx.clock.now();
  let queued = false;
  const row = transaction(ctx.db, (tx) => {
    if (learned) {
      savePeerCard(tx, learned, now);
      tx.update(connections).set({ cardUrl: learned.cardUrl ?? null, updatedAt: now }).where(eq(connections.id, id)).run();
    }
    if (input.layer !== undefined) {
      const before = tx.select({ layer: connections.layer, layerOverride: connections.layerOverride }).from(connections).where(eq(connections.id, id)).get()!;
      tx.update(connections).set({ layerOverride: input.layer, updatedAt: now }).where(eq(connections.id, id)).run();
      const [from, to] = [before.layerOverride ?? before.layer, input.layer ?? before.layer];
      if (from !== to) recordEvent(tx, "connection.layer_changed", now, { subjectId: id, from, to });
      recomputeRelationship(tx, now, id); // the health band is measured against the layer in force
    }
    const current = tx.select().from(connections).where(eq(connections.id, id)).get()!;
    const target = input.status;
    if (target && target !== current.status) {
      if (!ALLOWED[current.status]?.includes(target)) throw conflict(`a ${current.status} connection cannot become ${target}`);
      queued = change(tx, ctx, current, target, now);
    }
    return tx.select().from(connections).where(eq(connections.id, id)).get()!;
  });
  if (queued) ctx.wake.outbox();
  return connectionView(row);
}

function change(tx: Tx, ctx: Ctx, current: Row, target: Target, now: number): boolean {
  if (current.status === "pending" && (target === "connected" || target === "declined")) {
    return answerConnectionRequest(tx, ctx, current, target === "connected") !== null;
  }
  if (current.status === "pending" && target === "blocked") settleRequest(tx, current, now);
  if (current.status === "requested") cancelUndelivered(tx, current, now);
  tx.update(connections).set({ status: target, updatedAt: now }).where(eq(connections.id, current.id)).run();
  recordEvent(tx, `connection.${target === "blocked" ? "blocked" : "disconnected"}`, now, { subjectId: current.id, peerPrincipal: current.principal ?? undefined });
  return false;
}

function settleRequest(tx: Tx, current: Row, now: number): void {
  if (!current.requestMessageId) return;
  const request = tx.select().from(messages).where(eq(messages.id, current.requestMessageId)).get();
  tx.update(messages).set({ status: "rejected" }).where(eq(messages.id, current.requestMessageId)).run();
  if (request?.pendingActionId) {
    tx.update(pendingActions)
      .set({ status: "rejected", decidedAt: now, resultJson: JSON.stringify({ connection: "blocked" }) })
      .where(and(eq(pendingActions.id, request.pendingActionId), eq(pendingActions.status, "pending")))
      .run();
  }
}

/** A withdrawn request that has not been delivered yet is not delivered at all. */
function cancelUndelivered(tx: Tx, current: Row, _now: number): void {
  if (!current.principal) return;
  const waiting = tx
    .select({ id: outbox.id, messageId: outbox.messageId })
    .from(outbox)
    .innerJoin(messages, eq(messages.id, outbox.messageId))
    .where(and(eq(outbox.peerPrincipal, current.principal), eq(outbox.status, "queued"), eq(messages.intent, "connection_request")))
    .all();
  for (const w of waiting) {
    tx.update(outbox).set({ status: "cancelled" }).where(eq(outbox.id, w.id)).run();
    tx.update(messages).set({ status: "cancelled" }).where(eq(messages.id, w.messageId)).run();
  }
}
