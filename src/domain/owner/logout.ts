import { and, eq, isNull } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { ownerSessions, refreshTokens } from "../../db/schema/index.ts";
import { sha256Base64url } from "../../security/one-time-code.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";

/**
 * `POST /auth/logout`: revokes the session the refresh token belongs to (every refresh token of
 * its family). Like RFC 7009, an unknown or already revoked token is not an error: the answer is
 * the same, so it tells nothing. Access tokens already issued expire on their own (15 minutes).
 */
export function logout(ctx: Ctx, input: { refreshToken: string }): { loggedOut: true } {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "logout is anonymous");
  const now = ctx.clock.now();
  const hash = sha256Base64url(input.refreshToken);
  transaction(ctx.db, (tx) => {
    const row = tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).get();
    if (!row) return;
    tx.update(ownerSessions).set({ revokedAt: now, revokeReason: "logout" }).where(and(eq(ownerSessions.id, row.sessionId), isNull(ownerSessions.revokedAt))).run();
  });
  return { loggedOut: true };
}
