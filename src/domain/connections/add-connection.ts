import { eq } from "drizzle-orm";
import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import { normalizePrincipal, ProfileSnapshot as InkProfileSnapshot } from "../../ink/index.ts";
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
  const cardUrl = input.cardUrl ?? (input.baseUrl && input.agentId ? cardUrlFor(input.baseUrl, input.agentId) : null);
  if (!cardUrl) throw invalidInput(input.baseUrl ? "baseUrl must be an https URL and agentId a valid agent id" : "cardUrl, or baseUrl with agentId, is required");
  const agentId = input.agentId ?? agentIdFromCardUrl(cardUrl);
  const principal = agentId ? normalizePrincipal(agentId) : null;
  const existing = principal?.ok ? ctx.db.select().from(connections).where(eq(connections.principal, principal.principal)).get() : undefined;
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
