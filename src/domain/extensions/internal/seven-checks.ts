import type { Db } from "../../../db/client.ts";
import { extensionStatements } from "../../../db/extension-statements.ts";
import { readSnapshot } from "../../../db/read-snapshot.ts";
import { decodeEd25519PublicKey, parseTimestamp, type Ed25519Verifier } from "../../../ink/index.ts";
import { delegationTokenHash, verifyDelegationToken, type AutonomyTier } from "../../../security/extension-token.ts";
import { tierRank } from "../../../security/extension-token.ts";
import { secretsEqual } from "../../../security/secret-box.ts";
import type { VerifyCall } from "../../../security/preverify.ts";
import type { Ctx, ExtensionActor } from "../../context.ts";
import { usable } from "./installation-row.ts";
import { cachedInstallation, remember, requestCache, type CachedToken, type RequestCache } from "./request-cache.ts";
import { unauthorized } from "./ext-refusal.ts";
import { SUSPENDED_MESSAGE } from "./suspension.ts";
import { checkUnsignedParts, signingKey, type SignedRequest } from "./request-checks.ts";

export interface ExtensionRequest extends SignedRequest {
  authorization: string | null;
}

export type AuthenticatedExtension = ExtensionActor & { nonce: string; cache: RequestCache };

/**
 * SPEC Authentication §2's checks 1–6, and check 7 up to its verifications (`calls`, run by the
 * caller in place or batched); `finish` decides 7 from their verdicts (authenticate-extension.ts).
 */
export function checkUpToSignature(ctx: Pick<Ctx, "db" | "clock">, input: ExtensionRequest, verify: Ed25519Verifier): CheckedUpToSignature {
  // Checks 1–6 read the database two to four times (the cache's generation, check 6's nonce, rows
  // the cache lacks): in one read transaction (db/read-snapshot.ts) the WAL read lock is taken once
  // (~2.5 µs of a request, docs/decisions/extensions.md §14), and they read one snapshot. Inside
  // the caller's transaction they read in it, and what they read is not cached (request-cache.ts).
  const own = !ctx.db.$client.inTransaction;
  return readSnapshot(ctx.db, () => checks(ctx, input, verify, own));
}

type CheckedUpToSignature = { calls: VerifyCall[]; finish(verdict: (call: VerifyCall, i: number) => boolean): AuthenticatedExtension };

function checks(ctx: Pick<Ctx, "db" | "clock">, input: ExtensionRequest, verify: Ed25519Verifier, readTransaction: boolean): CheckedUpToSignature {
  const now = ctx.clock.now();
  // 1. the token's signature, under an active agent key (a rotation invalidates every token)
  // The scheme is case-insensitive and followed by 1*SP (RFC 7235 §2.1, RFC 6750 §2.1), as the
  // owner's bearer (owner-auth.ts) already reads it: an independent client sending `bearer` is right.
  const match = input.authorization?.match(/^Bearer +([A-Za-z0-9_.-]{1,8192})$/i);
  if (!match) throw unauthorized("token_invalid", input.authorization ? "malformed Authorization header: expected Bearer <delegation token>" : "a delegation token is required (Authorization: Bearer <token>)");
  const token = match[1]!;
  const cache = requestCache(ctx.db, readTransaction);
  const verified = verifiedToken(ctx.db, cache, token, verify);
  const payload = verified.payload;
  // 2. expiry: [issuedAt, expiresAt)
  if (now >= verified.expiresAt) throw unauthorized("token_expired", "the delegation token has expired; renew it (POST /ext/v1/token)");
  // 3. the token is the installation's current one
  const row = cachedInstallation(ctx.db, cache, payload.installationId);
  if (!row || row.tokenHash === null || !secretsEqual(row.tokenHash, verified.hash)) throw unauthorized("token_revoked", "this token was replaced (renewal or a grant change); renew it (POST /ext/v1/token)");
  // 4. the installation is active (a pending update keeps the old grant running; a suspended
  // extension's is not)
  if (row.status === "uninstalled") throw unauthorized("installation_inactive", "the extension was uninstalled");
  if (row.suspended) throw unauthorized("installation_inactive", SUSPENDED_MESSAGE);
  // 5–7: timestamp window, nonce, the request signature under the token's key (still one of the installation's)
  const keys = usable(row.keys, now).filter((k) => k.publicKeyMultibase === payload.publicKeyMultibase);
  const checked = checkUnsignedParts(ctx.db, row.id, input, keys, now);
  return {
    calls: checked.calls,
    finish(verdict) {
      signingKey(checked, verdict);
      const grant = row.grant;
      return {
        kind: "extension",
        installationId: row.id,
        extensionId: row.extensionId,
        // the token's grant, narrowed by the installation's current one
        permissions: payload.permissions.filter((p) => grant.permissions.includes(p)),
        layers: payload.layers.filter((l) => grant.layers.includes(l)),
        maxAutonomyTier: lower(payload.maxAutonomyTier, grant.maxAutonomyTier),
        publicKeyMultibase: payload.publicKeyMultibase,
        nonce: checked.nonce,
        cache,
      };
    },
  };
}

/**
 * Check 1, cached by token (its hash with it) for the generation of the agent's keys it verified
 * under (request-cache.ts): a rotation or revocation empties the cache before the next request.
 */
function verifiedToken(db: Db, cache: RequestCache, token: string, verify: Ed25519Verifier): CachedToken {
  const hit = cache.tokens.get(token);
  if (hit !== undefined) return hit;
  const keys = extensionStatements(db).activeSigningKeys.all().map((k) => decodeEd25519PublicKey(k.multibase)!);
  const result = verifyDelegationToken(token, keys, verify);
  if (!result.ok) throw unauthorized("token_invalid", result.problem);
  const entry = { hash: delegationTokenHash(token), payload: result.payload, expiresAt: parseTimestamp(result.payload.expiresAt)! };
  remember(cache.tokens, token, entry);
  return entry;
}

function lower(a: AutonomyTier, b: AutonomyTier): AutonomyTier {
  return tierRank(a) <= tierRank(b) ? a : b;
}
