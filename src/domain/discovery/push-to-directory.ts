import { and, eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { directoryPushes } from "../../db/schema/index.ts";
import { formatTimestamp, messageType, signTransport } from "../../ink/index.ts";
import { nativeEd25519Sign } from "../../security/ed25519-native.ts";
import type { Ctx, With } from "../context.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { activeSigningKey } from "../agent/active-signing-key.ts";
import { errorOf, isNetworkFailure, isTransientStatus, jsonObjectOf, parseRetryAfter, settleAttempt, type AttemptOutcome } from "../internal/retry.ts";
import { cardUrlFor } from "../peers/card-url-for.ts";
import { agentIdFromCardUrl } from "../peers/agent-id-from-card-url.ts";
import { fetchPeerCard } from "../peers/fetch-peer-card.ts";

export type PushRow = typeof directoryPushes.$inferSelect;

export const LISTINGS_PATH = "/ink/v1/directory/listings";
const PUSH_TIMEOUT_MS = 15_000;

export type PushOutcome = AttemptOutcome<{ remoteStatus: string | null }>;

/**
 * One push attempt: the directory's agent id is learned from its card (a configured card URL, or
 * the agent id its `/.well-known/ink/agent.json` alias names, then verified at the normative card
 * path under the discovery-fetch contract), and a fresh transport-signed listing request (new
 * timestamp and nonce, the active signing key) is POSTed through the SSRF gate. 2xx delivered;
 * network errors, 408, 425, 429 and 5xx retried with the intent outbox's backoff (Retry-After
 * honoured); any other answer fails with the directory's error code.
 */
export async function pushToDirectory(ctx: With<"node" | "vault" | "peers">, item: PushRow): Promise<PushOutcome> {
  const outcome = await attempt(ctx, item);
  return settle(ctx, item, outcome);
}

async function attempt(ctx: With<"node" | "vault" | "peers">, item: PushRow): Promise<PushOutcome> {
  const own = ownIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) return { kind: "failed", error: "this node has no agent or signing key" };
  const directory = await resolveDirectory(ctx, item.directory);
  if (!directory.ok) return directory.outcome;

  const now = ctx.clock.now();
  const body = {
    protocol: "ink/0.1",
    type: messageType("directory_listing", ctx.node.wordmark),
    action: item.action,
    from: own.agentId,
    to: directory.agentId,
    cardUrl: own.cardUrl,
    nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url"),
    timestamp: formatTimestamp(now),
  };
  const signed = signTransport({ method: "POST", path: new URL(directory.listingsUrl).pathname, recipientDid: directory.agentId, body, timestamp: body.timestamp }, key.privateKey, key.keyId, nativeEd25519Sign);
  if (!signed.ok) return { kind: "failed", error: `cannot sign: ${signed.reason}` };
  const res = await ctx.peers.http.request(directory.listingsUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: signed.authorization },
    body: JSON.stringify(body),
    timeoutMs: PUSH_TIMEOUT_MS,
    maxBytes: 65_536,
  });
  if (!res.ok) return isNetworkFailure(res.reason) || res.reason === "too_large" ? { kind: "retry", error: `${res.reason}: ${res.detail}` } : { kind: "failed", error: `${res.reason}: ${res.detail}` };
  const answer = jsonObjectOf(res.body);
  if (res.status >= 200 && res.status < 300) return { kind: "delivered", status: res.status, remoteStatus: typeof answer?.status === "string" ? answer.status.slice(0, 32) : null };
  const error = errorOf(answer) ?? `HTTP ${res.status}`;
  // A directory that could not resolve our card says only that (INK §12); it may be passing.
  const unresolved = answer?.code === "unresolvable_sender_key";
  if (isTransientStatus(res.status) || unresolved) {
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"), now);
    return { kind: "retry", error, status: res.status, ...(retryAfterMs !== null ? { retryAfterMs } : {}) };
  }
  return { kind: "failed", error, status: res.status };
}

type Directory = { ok: true; agentId: string; listingsUrl: string } | { ok: false; outcome: PushOutcome };

/** The directory's agent id (verified through its card) and its listing endpoint. */
async function resolveDirectory(ctx: With<"node" | "vault" | "peers">, entry: string): Promise<Directory> {
  const http = ctx.peers.http;
  const pinned = agentIdFromCardUrl(entry);
  const base = pinned ? entry.slice(0, entry.lastIndexOf("/ink/v1/")) : entry.replace(/\/+$/, "");
  let agentId = pinned;
  if (!agentId) {
    const alias = await http.request(`${base}/.well-known/ink/agent.json`, { headers: { accept: "application/json" }, timeoutMs: 5_000, maxBytes: 65_536 });
    if (!alias.ok) return unreachable(`directory card alias: ${alias.reason}: ${alias.detail}`, isNetworkFailure(alias.reason));
    const named = alias.status === 200 ? jsonObjectOf(alias.body)?.agentId : undefined;
    if (typeof named !== "string") return unreachable(`directory card alias answered HTTP ${alias.status} without an agent id`, alias.status >= 500);
    agentId = named;
  }
  const cardUrl = cardUrlFor(base, agentId);
  if (!cardUrl) return { ok: false, outcome: { kind: "failed", error: `not a usable directory: ${entry}` } };
  const card = await fetchPeerCard(ctx, { cardUrl, agentId });
  if (!card.ok) return unreachable(`directory card: ${card.reason}${card.httpStatus ? ` (HTTP ${card.httpStatus})` : ""}`, isNetworkFailure(card.reason) || (card.httpStatus ?? 0) >= 500);
  return { ok: true, agentId, listingsUrl: `${base}${LISTINGS_PATH}` };
}

function unreachable(error: string, transient: boolean): Directory {
  return { ok: false, outcome: transient ? { kind: "retry", error } : { kind: "failed", error } };
}

function settle(ctx: Ctx, item: PushRow, outcome: PushOutcome): PushOutcome {
  const now = ctx.clock.now();
  const { final, update } = settleAttempt(outcome, item.attempts, now);
  transaction(ctx.db, (tx) => {
    // `id` pins the action this attempt was for: a newer publish/unpublish is left alone.
    const mine = and(eq(directoryPushes.directory, item.directory), eq(directoryPushes.id, item.id));
    tx.update(directoryPushes).set({ ...update, ...(final.kind === "delivered" ? { remoteStatus: final.remoteStatus } : {}) }).where(mine).run();
  });
  const log = { directory: item.directory, action: item.action, attempts: update.attempts, outcome: final.kind, ...(final.kind !== "delivered" ? { error: final.error } : {}) };
  if (final.kind === "delivered") ctx.log.info("directory push delivered", log);
  else ctx.log.warn("directory push attempt failed", log);
  return final;
}
