import { transaction } from "../../db/client.ts";
import type { With } from "../context.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { receiveIntent } from "../inbox/receive-intent.ts";
import { authenticatePeer } from "../peers/authenticate-peer.ts";
import { homeRequest } from "./internal/home-request.ts";
import type { DrainedItem } from "./internal/list-mailbox-items.ts";
import { recordMailboxUse } from "./internal/mailbox-use.ts";

/** A drained request older than this (by the mailbox's word) is refused: the longest retention a mailbox grants. */
export const MAX_HELD_MS = 30 * 24 * 3_600_000;

export type DrainMailboxOutcome = { ok: true; received: number; duplicates: number; refused: number; acknowledged: number } | { ok: false; error: string };

/**
 * One round of collecting this (home) node's mailbox (docs/decisions/mailbox.md): a signed drain
 * (the mailbox holds it up to `waitMs` while nothing waits), then each request, oldest first,
 * through the node's own receiver exactly as if it had arrived at the endpoint — authenticatePeer
 * then receiveIntent, with the endpoint path the card names and freshness judged at the time the
 * mailbox accepted it — and a signed ack of those that were committed (stored, held, a duplicate,
 * a replay) or refused for good. An item whose processing threw (the node stopping, a disk error)
 * is not acknowledged: the next round gets it again, and the receiver's nonce and message-id
 * dedupe make sure it is stored once.
 */
export async function drainMailbox(ctx: With<"node" | "vault" | "peers" | "limiter" | "writes" | "wake" | "crypto">, input: { waitMs: number; signal?: AbortSignal }): Promise<DrainMailboxOutcome> {
  const url = ctx.node.mailboxUrl;
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  if (!url || !own) return { ok: false, error: "no mailbox configured or no agent" };
  const res = await homeRequest(ctx, "mailbox_drain", { waitMs: input.waitMs }, { timeoutMs: input.waitMs + 10_000, signal: input.signal });
  // The node is stopping: nothing was taken from the mailbox, and the database may be closing.
  if (!res.ok && res.reason === "aborted") return { ok: false, error: "stopped" };
  const items = res.ok && res.status === 200 ? itemsOf(res.body) : null;
  if (!items) {
    const error = !res.ok ? `${res.reason}: ${res.detail}` : `HTTP ${res.status}: ${new TextDecoder().decode(res.body).slice(0, 300)}`;
    transaction(ctx.db, (tx) => recordMailboxUse(tx, url, { lastError: `drain: ${error}` }));
    return { ok: false, error };
  }
  const done: string[] = [];
  const counts = { received: 0, duplicate: 0, refused: 0 };
  let failure: string | null = null;
  for (const item of items) {
    try {
      counts[await receiveDrained(ctx, own, item)]++;
      done.push(item.id);
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
      ctx.log.error("mailbox item not processed; it stays in the mailbox", { item: item.id, cause: e });
      break; // keep the order: later items wait for the next round too
    }
  }
  let acknowledged = 0;
  if (done.length > 0) {
    const ack = await homeRequest(ctx, "mailbox_ack", { ids: done }, { timeoutMs: 10_000 });
    if (ack.ok && ack.status === 200) acknowledged = done.length;
    else failure ??= `ack: ${!ack.ok ? ack.reason : `HTTP ${ack.status}`}`;
  }
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => recordMailboxUse(tx, url, { lastDrainAt: now, lastError: failure, drained: counts.received, refused: counts.refused }));
  if (failure && done.length === 0 && items.length > 0) return { ok: false, error: failure };
  return { ok: true, received: counts.received, duplicates: counts.duplicate, refused: counts.refused, acknowledged };
}

/** One held request through the receiver, as the HTTP route runs it (http/surfaces/ink.routes.ts). */
async function receiveDrained(
  ctx: With<"node" | "vault" | "peers" | "limiter" | "writes" | "wake" | "crypto">,
  own: { agentId: string; endpointPath: string },
  item: DrainedItem,
): Promise<"received" | "duplicate" | "refused"> {
  const now = ctx.clock.now();
  if (now - item.acceptedAt > MAX_HELD_MS) return refusedItem(ctx, item, "timestamp_expired");
  const edge = { ...ctx, actor: { kind: "public" as const, ip: null } };
  const request = { scheme: "intent" as const, pathAgentId: own.agentId, body: Buffer.from(item.body, "base64url"), authorization: item.authorization || null, requestPath: own.endpointPath, receivedAt: Math.min(item.acceptedAt, now) };
  const auth = await authenticatePeer(edge, request);
  if (!auth.ok) return refusedItem(ctx, item, auth.reason);
  const outcome = await receiveIntent({ ...ctx, actor: auth.actor }, { request: auth.request, learned: auth.learned, cardHint: item.cardHint });
  // Already committed by an earlier round whose ack was lost: its nonce, or past the nonce
  // retention its message id, is on record (receive-intent.ts); acknowledged, stored once.
  if (!outcome.ok) return outcome.reason === "nonce_replay" ? "duplicate" : refusedItem(ctx, item, outcome.reason);
  return outcome.duplicate ? "duplicate" : "received";
}

function refusedItem(ctx: With<"node">, item: DrainedItem, reason: string): "refused" {
  ctx.log.info("mailbox item refused by the receiver", { item: item.id, reason });
  return "refused";
}

function itemsOf(body: Uint8Array): DrainedItem[] | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { items?: unknown };
    if (!Array.isArray(parsed.items)) return null;
    return parsed.items.filter(
      (i): i is DrainedItem =>
        !!i && typeof i === "object" && typeof i.id === "string" && typeof i.acceptedAt === "number" && typeof i.authorization === "string" && typeof i.body === "string" && (i.cardHint === null || typeof i.cardHint === "string"),
    );
  } catch {
    return null;
  }
}
