import { and, eq, isNull } from "drizzle-orm";
import { transaction, type Tx } from "../../db/client.ts";
import { ownerSessions, refreshTokens } from "../../db/schema/index.ts";
import { sha256Base64url, successorToken } from "../../security/one-time-code.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { REFRESH_REUSE_GRACE_MS, REFRESH_TOKEN_TTL_MS, type SignInDeps, type TokenPair } from "./sign-in.ts";
import { REFRESH_TOKEN_PREFIX, tokenPair } from "./internal/start-session.ts";

export const INVALID_REFRESH = "the refresh token is not valid; sign in again";

/**
 * `POST /auth/refresh`: a live refresh token is spent and replaced (rotation) with a new pair.
 * The successor is derived from the spent token (HMAC under a node-secret key), so the token
 * presented again within 30 s of its rotation answers the same successor: two tabs refreshing
 * at once both end up holding it, and the family does not branch (docs/decisions/owner-sign-in.md).
 * Presented later, or once its successor was itself spent, a spent token means it was
 * copied: the whole family (session) is revoked, so neither the thief's nor the owner's copy works.
 */
export async function refreshSession(ctx: Ctx, input: { refreshToken: string }, deps: Pick<SignInDeps, "tokens" | "refreshKey">): Promise<TokenPair> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "refresh is anonymous");
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || input.refreshToken.length > 128) throw unauthorized();
  const hash = sha256Base64url(input.refreshToken);
  const found = ctx.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).get();
  if (!found) throw unauthorized();
  const session = ctx.db.select().from(ownerSessions).where(eq(ownerSessions.id, found.sessionId)).get();
  if (!session) throw unauthorized();
  // Async work first (signing), then one synchronous transaction re-checks and writes.
  const accessToken = await deps.tokens.sign({ sessionId: found.sessionId, method: session.method, tokenId: ctx.ids.next() });
  const next = successorToken(deps.refreshKey, REFRESH_TOKEN_PREFIX, input.refreshToken);
  const nextHash = sha256Base64url(next);
  const now = ctx.clock.now();
  const outcome = transaction(ctx.db, (tx): "rotated" | "grace" | "reused" | "invalid" => {
    const row = tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).get();
    const family = tx.select().from(ownerSessions).where(eq(ownerSessions.id, found.sessionId)).get();
    if (!row || !family || family.revokedAt !== null) return "invalid";
    if (row.spentAt !== null) {
      if (now - row.spentAt <= REFRESH_REUSE_GRACE_MS && liveSuccessor(tx, nextHash, family.id, now)) return "grace";
      tx.update(ownerSessions).set({ revokedAt: now, revokeReason: "refresh_token_reused" }).where(eq(ownerSessions.id, family.id)).run();
      return "reused";
    }
    if (row.expiresAt <= now) return "invalid";
    const spent = tx.update(refreshTokens).set({ spentAt: now }).where(and(eq(refreshTokens.tokenHash, hash), isNull(refreshTokens.spentAt))).returning({ h: refreshTokens.tokenHash }).all();
    if (spent.length !== 1) return "invalid";
    tx.insert(refreshTokens).values({ tokenHash: nextHash, sessionId: family.id, expiresAt: now + REFRESH_TOKEN_TTL_MS, createdAt: now }).run();
    tx.update(ownerSessions).set({ lastUsedAt: now }).where(eq(ownerSessions.id, family.id)).run();
    return "rotated";
  });
  if (outcome === "reused") ctx.log.warn("a spent refresh token was presented again; its session is revoked", { sessionId: found.sessionId });
  if (outcome === "grace") ctx.log.info("a just-rotated refresh token was presented again within the grace; answered its successor", { sessionId: found.sessionId });
  if (outcome === "reused" || outcome === "invalid") throw unauthorized();
  return tokenPair(accessToken, next);
}

/** The successor of a just-spent token, still unspent and live in the same family. */
function liveSuccessor(tx: Tx, nextHash: string, sessionId: string, now: number): boolean {
  const successor = tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, nextHash)).get();
  return !!successor && successor.sessionId === sessionId && successor.spentAt === null && successor.expiresAt > now;
}

function unauthorized(): DomainError {
  return new DomainError("unauthorized", INVALID_REFRESH);
}
