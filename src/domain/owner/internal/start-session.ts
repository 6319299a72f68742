import { lt } from "drizzle-orm";
import { transaction } from "../../../db/client.ts";
import { ownerSessions, refreshTokens } from "../../../db/schema/index.ts";
import { newOpaqueToken, sha256Base64url } from "../../../security/one-time-code.ts";
import { ACCESS_TOKEN_TTL_SECONDS, OWNER_SUBJECT, type OwnerTokens } from "../../../security/owner-token.ts";
import type { Ctx } from "../../context.ts";
import { EXPIRED_ROW_GRACE_MS, REFRESH_TOKEN_TTL_MS, type SignInMethod, type TokenPair } from "../sign-in.ts";

export const REFRESH_TOKEN_PREFIX = "kith_rt_";

/**
 * Opens a session for the owner after a successful sign-in: a new refresh-token family and its
 * first token (stored as SHA-256), and a 15-minute access token naming the session.
 */
export async function startSession(ctx: Ctx, deps: { tokens: OwnerTokens }, method: SignInMethod): Promise<TokenPair> {
  const sessionId = ctx.ids.next();
  const accessToken = await deps.tokens.sign({ sessionId, method, tokenId: ctx.ids.next() });
  const refreshToken = newOpaqueToken(REFRESH_TOKEN_PREFIX);
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    tx.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now - EXPIRED_ROW_GRACE_MS)).run();
    tx.insert(ownerSessions).values({ id: sessionId, method, createdAt: now, lastUsedAt: now }).run();
    tx.insert(refreshTokens).values({ tokenHash: sha256Base64url(refreshToken), sessionId, expiresAt: now + REFRESH_TOKEN_TTL_MS, createdAt: now }).run();
  });
  ctx.log.info("owner signed in", { method, sessionId });
  return tokenPair(accessToken, refreshToken);
}

export function tokenPair(accessToken: string, refreshToken: string): TokenPair {
  return { accessToken, refreshToken, userId: OWNER_SUBJECT, tokenType: "Bearer", expiresIn: ACCESS_TOKEN_TTL_SECONDS };
}
