import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import { ProfileSnapshot as InkProfileSnapshot } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { conflict, invalidInput } from "../internal/errors.ts";
import { connectionView, type ConnectionView } from "./internal/connection-view.ts";
import { sendIntent, type SendResult } from "../outbox/send-intent.ts";
import { cardUrlFor } from "../peers/card-url-for.ts";
import { agentIdFromCardUrl } from "../peers/agent-id-from-card-url.ts";
import { ownProfileSnapshot } from "../profile/own-profile-snapshot.ts";
import { answerConnectionRequest } from "./answer-connection-request.ts";
import { replyRoute } from "./reply-route.ts";
import { requireOwner } from "../internal/actors.ts";
import { principalOf } from "../internal/principal-of.ts";
import { findPeerCard } from "../peers/find-peer-card.ts";
import type { Db } from "../../db/client.ts";

export const AddConnectionInput = v.strictObject({
  cardUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("The peer's Agent Card URL"))),
  baseUrl: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("The peer node's base URL (with agentId), instead of cardUrl"))),
  agentId: v.optional(v.pipe(v.string(), v.maxLength(512))),
  context: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2000), v.description("Why you want to connect (INK connection_request context)"))),
  method: v.optional(v.picklist(["qr", "intro", "discovery", "import"], "method: one of qr, intro, discovery, import")),
  introducedBy: v.optional(v.pipe(v.string(), v.maxLength(512))),
  profileSnapshot: v.optional(InkProfileSnapshot),
});
export type AddConnectionInput = v.InferOutput<typeof AddConnectionInput>;

export interface AddConnectionResult {
  connection: ConnectionView;
  /** The connection_request as queued (null when it accepted their pending request instead). */
  request: SendResult | null;
}

/**
 * Connect to an agent by its card URL (or base URL + agent id): sends a connection_request with
 * the owner's public profile snapshot. If that agent already asked us, this accepts their request.
 */
export async function addConnection(ctx: With<"node" | "vault" | "peers" | "wake">, input: AddConnectionInput): Promise<AddConnectionResult> {
  requireOwner(ctx, "manages connections");
  // A card path needs the id as the card spells it: for the canonical key:z…, the spelling this node knows.
  const canonical = input.agentId?.startsWith("key:") === true;
  const pathId = canonical && input.agentId ? knownSpelling(ctx.db, input.agentId) : input.agentId;
  if (canonical && !input.cardUrl && input.baseUrl && !pathId) {
    throw invalidInput("agentId: key:z… names a key, not a card path; for an agent this node does not know yet, give its id as its card spells it (svc:z…, tulpa:z…, ink:z…) or its cardUrl");
  }
  const cardUrl = input.cardUrl ?? (input.baseUrl && pathId ? cardUrlFor(input.baseUrl, pathId) : null);
  if (!cardUrl) throw invalidInput(input.baseUrl ? "baseUrl must be an https URL and agentId a valid agent id" : "cardUrl, or baseUrl with agentId, is required");
  const agentId = input.agentId ?? agentIdFromCardUrl(cardUrl);
  const principal = agentId ? principalOf(agentId) : null;
  const existing = principal !== null ? ctx.db.select().from(connections).where(eq(connections.principal, principal)).get() : undefined;
  if (existing?.status === "connected") throw conflict("already connected");
  if (existing?.status === "blocked") throw conflict("this agent is blocked; unblock it first (PATCH status: disconnected)");
  if (existing?.status === "pending") {
    const route = await replyRoute(ctx, existing, cardUrl); // the card URL given is where the answer goes
    const answered = transaction(ctx.db, (tx) => answerConnectionRequest(tx, ctx, existing, true, undefined, route));
    if (answered) ctx.wake.outbox();
    return { connection: connectionView(ctx.db.select().from(connections).where(eq(connections.id, existing.id)).get()!), request: null };
  }
  const payload: Record<string, unknown> = {
    method: input.method ?? "discovery",
    context: input.context ?? "I would like to connect.",
    profileSnapshot: input.profileSnapshot ?? ownProfileSnapshot(ctx.db, "public"),
  };
  if (input.introducedBy) payload.introducedBy = input.introducedBy;
  const request = await sendIntent(ctx, { ...(agentId ? { to: agentId } : {}), cardUrl, intent: "connection_request", payload });
  const row = ctx.db.select().from(connections).where(eq(connections.principal, request.peerPrincipal)).get()!;
  return { connection: connectionView(row), request };
}

/** The agent id (as its card spells it) of a principal this node knows: a connection's, else a stored card's. */
function knownSpelling(db: Db, principal: string): string | null {
  return db.select({ agentId: connections.agentId }).from(connections).where(eq(connections.principal, principal)).get()?.agentId ?? findPeerCard(db, principal)?.agentId ?? null;
}
