import * as v from "valibot";
import type { Ed25519Verifier } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { appendAuditEvent } from "../internal/audit-chain.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { agentSigner } from "./internal/agent-signer.ts";
import { nonceScope, unauthorized } from "./internal/ext-refusal.ts";
import { isSuspended, SUSPENDED_MESSAGE } from "./internal/suspension.ts";
import { activeKeys, findInstallation } from "./internal/installation-row.ts";
import { checkSignedRequest, type SignedRequest } from "./internal/request-checks.ts";
import { issueToken, type IssuedToken } from "./internal/issue-token.ts";

/** Renewals per installation and minute, counted after the checks passed (docs/extensions.md "Limits"). */
export const RENEW_LIMIT = { limit: 30, windowMs: 60_000 };

export const RenewTokenInput = v.strictObject({
  installationId: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("The installation whose token to renew")),
  ttlHours: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24), v.description("Lifetime in hours, capped to the manifest's token.ttlHours (default 4)"))),
});
export type RenewTokenInput = v.InferOutput<typeof RenewTokenInput>;

/**
 * POST /ext/v1/token (EXTENSIONS §1.5): the extension renews its own token with a request signed
 * by one of its keys, no Authorization and no owner. SPEC checks 4–7 in order (installation
 * active, timestamp, nonce, signature under one of the installation's active keys); the new
 * token is bound to the key that signed, carries the current grant, and replaces the stored hash,
 * which revokes the previous token.
 */
export async function renewExtensionToken(ctx: With<"node" | "vault" | "writes" | "limiter">, input: RenewTokenInput, request: SignedRequest, verify: Ed25519Verifier): Promise<IssuedToken & { installationId: string }> {
  const now = ctx.clock.now();
  const row = findInstallation(ctx.db, input.installationId);
  if (!row || row.status === "uninstalled") throw unauthorized("installation_inactive", "no active installation has this id");
  if (isSuspended(ctx.db, row.extensionId)) throw unauthorized("installation_inactive", SUSPENDED_MESSAGE);
  // Only an active key renews: a key a manifest update dropped still signs requests during its
  // 24 h grace (usableKeys), but renewing with it would revoke the new key's token and extend the
  // old key's life past the grace (docs/extensions.md §3).
  const { nonce, key } = checkSignedRequest(ctx.db, row.id, request, activeKeys(row), now, verify);
  const limited = ctx.limiter.consume("ext-token", row.id, RENEW_LIMIT, now);
  if (!limited.allowed) throw new DomainError("rate_limited", "this installation renewed its token too often; retry later", { retryAfterSeconds: limited.retryAfterSeconds });
  const signer = agentSigner(ctx);
  const id = ctx.ids.next();
  const issued = await ctx.writes.run((tx) => {
    if (!recordNonce(ctx.db, nonceScope(row.id), nonce, now)) return null;
    const current = findInstallation(tx, row.id)!;
    const token = issueToken(tx, current, signer, key.publicKeyMultibase, now, input.ttlHours);
    appendAuditEvent(tx, row.id, signer, id, now, { eventType: "delegation.granted", data: { by: "renewal", transport: "extension_api", keyId: key.keyId, expiresAt: token.tokenExpiresAt } });
    return token;
  });
  if (!issued) throw unauthorized("nonce_replayed", "this nonce was already used");
  return { installationId: row.id, ...issued };
}
