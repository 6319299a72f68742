import { and, eq, isNull } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { ownerSessions, refreshTokens } from "../../db/schema/index.ts";
import { newOpaqueToken, sha256Base64url } from "../../security/one-time-code.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { REFRESH_TOKEN_TTL_MS, type SignInDeps, type TokenPair } from "./owner.ts";
import { REFRESH_TOKEN_PREFIX, tokenPair } from "./start-session.ts";

export const INVALID_REFRESH = "the refresh token is not valid; sign in again";

/**
 * `POST /auth/refresh`: a live refresh token is spent and replaced (rotation) with a new pair.
 * A spent token presented again means it was copied: the whole family (session) is revoked, so
 * neither the thief's nor the owner's copy works any more.
 */
export async function refreshSession(ctx: Ctx, input: { refreshToken: string }, deps: Pick<SignInDeps, "tokens">): Promise<TokenPair> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "refresh is anonymous");
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || input.refreshToken.length > 128) throw unauthorized();
  const hash = sha256Base64url(input.refreshToken);
  const found = ctx.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).get();
  if (!found) throw unauthorized();
  const session = ctx.db.select().from(ownerSessions).where(eq(ownerSessions.id, found.sessionId)).get();
  if (!session) throw unauthorized();
  // Async work first (signing), then one synchronous transaction re-checks and writes.
  const accessToken = await deps.tokens.sign({ sessionId: found.sessionId, method: session.method, tokenId: ctx.ids.next() });
  const next = newOpaqueToken(REFRESH_TOKEN_PREFIX);
  const now = ctx.clock.now();
  const outcome = transaction(ctx.db, (tx): "ok" | "reused" | "invalid" => {
    const row = tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).get();
    const family = tx.select().from(ownerSessions).where(eq(ownerSessions.id, found.sessionId)).get();
    if (!row || !family || family.revokedAt !== null) return "invalid";
    if (row.spentAt !== null) {
      tx.update(ownerSessions).set({ revokedAt: now, revokeReason: "refresh_token_reused" }).where(eq(ownerSessions.id, family.id)).run();
      return "reused";
    }
    if (row.expiresAt <= now) return "invalid";
    const spent = tx.update(refreshTokens).set({ spentAt: now }).where(and(eq(refreshTokens.tokenHash, hash), isNull(refreshTokens.spentAt))).returning({ h: refreshTokens.tokenHash }).all();
    if (spent.length !== 1) return "invalid";
    tx.insert(refreshTokens).values({ tokenHash: sha256Base64url(next), sessionId: family.id, expiresAt: now + REFRESH_TOKEN_TTL_MS, createdAt: now }).run();
    tx.update(ownerSessions).set({ lastUsedAt: now }).where(eq(ownerSessions.id, family.id)).run();
    return "ok";
  });
  if (outcome === "reused") ctx.log.warn("a spent refresh token was presented again; its session is revoked", { sessionId: found.sessionId });
  if (outcome !== "ok") throw unauthorized();
  return tokenPair(accessToken, next);
}

function unauthorized(): DomainError {
  return new DomainError("unauthorized", INVALID_REFRESH);
}
