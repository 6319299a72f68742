import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { agentKeys, inboundNonces } from "../../db/schema/index.ts";
import { checkFreshness, decodeEd25519PublicKey, parseTimestamp, type Ed25519Verifier } from "../../ink/index.ts";
import { extensionSigningString, isExtensionNonce, verifyExtensionSignature } from "../../security/extension-request.ts";
import { delegationTokenHash, verifyDelegationToken, type AutonomyTier, type DelegationPayload } from "../../security/extension-token.ts";
import { tierRank } from "../../security/extension-token.ts";
import { secretsEqual } from "../../security/secret-box.ts";
import type { Ctx, ExtensionActor } from "../context.ts";
import { grantOf, findInstallation, usableKeys } from "./internal/installation-row.ts";
import { nonceScope, unauthorized } from "./internal/ext-refusal.ts";

export interface ExtensionRequest {
  authorization: string | null;
  nonce: string | null;
  timestamp: string | null;
  signature: string | null;
  method: string;
  /** The raw request target: path and `?query` exactly as sent. */
  target: string;
  body: Uint8Array;
}

/**
 * SPEC Authentication §2, the seven checks in SPEC's order, each refusal a 401 with its own code
 * (ext-refusal.ts). A header is read at the check that needs it: Authorization at 1,
 * X-Request-Timestamp at 5, X-Request-Nonce at 6, X-Extension-Signature at 7, so a request
 * failing two checks always reports the earlier. Token verification is cached by token hash
 * (bounded), so a request costs one native verify, its own signature's. Nothing is written
 * here: the nonce is recorded with the request's audit event (record-extension-call.ts).
 */
export function authenticateExtension(ctx: Pick<Ctx, "db" | "clock">, input: ExtensionRequest, verify: Ed25519Verifier): ExtensionActor & { nonce: string } {
  const now = ctx.clock.now();
  // 1. the token's signature, under an active agent key (a rotation invalidates every token)
  const match = input.authorization?.match(/^Bearer ([A-Za-z0-9_.-]{1,8192})$/);
  if (!match) throw unauthorized("token_invalid", input.authorization ? "malformed Authorization header: expected Bearer <delegation token>" : "a delegation token is required (Authorization: Bearer <token>)");
  const token = match[1]!;
  const hash = delegationTokenHash(token);
  const payload = verifiedPayload(ctx.db, token, hash, verify);
  // 2. expiry: [issuedAt, expiresAt)
  if (now >= parseTimestamp(payload.expiresAt)!) throw unauthorized("token_expired", "the delegation token has expired; renew it (POST /ext/v1/token)");
  // 3. the token is the installation's current one
  const row = findInstallation(ctx.db, payload.installationId);
  if (!row || row.tokenHash === null || !secretsEqual(row.tokenHash, hash)) throw unauthorized("token_revoked", "this token was replaced (renewal or a grant change); renew it (POST /ext/v1/token)");
  // 4. the installation is active (a pending update keeps the old grant running)
  if (row.status === "uninstalled") throw unauthorized("installation_inactive", "the extension was uninstalled");
  // 5. timestamp window: at most 300 s old, at most 30 s ahead (INK §8), strict RFC 3339
  const at = parseTimestamp(input.timestamp);
  if (at === null) throw unauthorized("timestamp_out_of_window", input.timestamp === null ? "X-Request-Timestamp is required" : "X-Request-Timestamp: not a strict RFC 3339 timestamp");
  if (checkFreshness(at, now) !== "fresh") throw unauthorized("timestamp_out_of_window", "X-Request-Timestamp is more than 300 s old or more than 30 s ahead");
  // 6. the nonce was not used by this installation within the window
  const nonce = input.nonce;
  if (nonce === null || !isExtensionNonce(nonce)) throw unauthorized("nonce_replayed", "X-Request-Nonce: 16 to 128 characters of [A-Za-z0-9_-] (a UUID) is required");
  if (nonceSeen(ctx.db, row.id, nonce)) throw unauthorized("nonce_replayed", "this nonce was already used");
  // 7. the request signature, under the token's key, still one of the installation's
  const key = usableKeys(row, now).some((k) => k.publicKeyMultibase === payload.publicKeyMultibase) ? decodeEd25519PublicKey(payload.publicKeyMultibase) : null;
  const signing = extensionSigningString(input.method, input.target, nonce, input.timestamp!, input.body);
  if (key === null || input.signature === null || !verifyExtensionSignature(input.signature, key, signing, verify)) {
    throw unauthorized("signature_invalid", input.signature === null ? "X-Extension-Signature is required" : "X-Extension-Signature does not verify under the extension's key");
  }
  const grant = grantOf(row);
  return {
    kind: "extension",
    installationId: row.id,
    extensionId: row.extensionId,
    // the token's grant, narrowed by the installation's current one
    permissions: payload.permissions.filter((p) => grant.permissions.includes(p)),
    layers: payload.layers.filter((l) => grant.layers.includes(l)),
    maxAutonomyTier: lower(payload.maxAutonomyTier, grant.maxAutonomyTier),
    publicKeyMultibase: payload.publicKeyMultibase,
    nonce,
  };
}

const MAX_CACHED_TOKENS = 4096;
const verified = new Map<string, { payload: DelegationPayload; keys: string }>();

/** Check 1, cached by token hash while the agent's active keys are the ones that verified it. */
function verifiedPayload(db: Db, token: string, hash: string, verify: Ed25519Verifier): DelegationPayload {
  const active = db.select({ multibase: agentKeys.publicKeyMultibase }).from(agentKeys).where(and(eq(agentKeys.role, "signing"), eq(agentKeys.status, "active"))).all();
  const keys = active.map((k) => k.multibase).join(",");
  const hit = verified.get(hash);
  if (hit && hit.keys === keys) return hit.payload;
  const result = verifyDelegationToken(token, active.map((k) => decodeEd25519PublicKey(k.multibase)!), verify);
  if (!result.ok) throw unauthorized("token_invalid", result.problem);
  if (verified.size >= MAX_CACHED_TOKENS) verified.delete(verified.keys().next().value as string);
  verified.set(hash, { payload: result.payload, keys });
  return result.payload;
}

function nonceSeen(db: Db, installationId: string, nonce: string): boolean {
  return db.select({ n: inboundNonces.nonce }).from(inboundNonces).where(and(eq(inboundNonces.scope, nonceScope(installationId)), eq(inboundNonces.nonce, nonce))).get() !== undefined;
}

function lower(a: AutonomyTier, b: AutonomyTier): AutonomyTier {
  return tierRank(a) <= tierRank(b) ? a : b;
}
