import { eq, sql } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { extensionInstallations } from "../../../db/schema/index.ts";
import { formatTimestamp } from "../../../ink/index.ts";
import { delegationTokenHash, MAX_TOKEN_TTL_MS, signDelegationToken, TOKEN_VERSION } from "../../../security/extension-token.ts";
import type { AuditSigner } from "../../internal/audit-chain.ts";
import { grantOf, type InstallationRow } from "./installation-row.ts";
import { manifestOf } from "./installation-row.ts";

/** Default lifetime when neither the manifest (`token.ttlHours`) nor the request asks (EXTENSIONS §1.4). */
export const DEFAULT_TOKEN_TTL_HOURS = 4;

export interface IssuedToken {
  delegationToken: string;
  tokenExpiresAt: string;
}

/**
 * Issues a delegation token for the installation's current grant, bound to `publicKeyMultibase`
 * (the key its requests must be signed with), and stores its hash in place of the previous one:
 * the previous token fails SPEC check 3 from the next request on. A requested `ttlHours` above
 * the manifest's `token.ttlHours` (default 4) is capped to it.
 */
export function issueToken(tx: Tx, row: InstallationRow, signer: AuditSigner, publicKeyMultibase: string, now: number, ttlHours?: number): IssuedToken {
  // The manifest's lifetime is a ceiling, not a default (docs/extensions.md §3): a longer
  // `ttlHours` is capped to it, so a leaked key or token cannot buy itself a day.
  const ceiling = manifestOf(row).token?.ttlHours ?? DEFAULT_TOKEN_TTL_HOURS;
  const hours = Math.min(ttlHours ?? ceiling, ceiling);
  const expiresAt = now + Math.min(hours * 3600_000, MAX_TOKEN_TTL_MS);
  const grant = grantOf(row);
  const token = signDelegationToken(
    {
      tokenVersion: TOKEN_VERSION,
      installationId: row.id,
      extensionId: row.extensionId,
      ownerTulpaId: signer.agentId,
      publicKeyMultibase,
      permissions: grant.permissions,
      layers: grant.layers,
      maxAutonomyTier: grant.maxAutonomyTier,
      issuedAt: formatTimestamp(now),
      expiresAt: formatTimestamp(expiresAt),
    },
    signer.privateKey,
  );
  tx.update(extensionInstallations)
    .set({ tokenHash: delegationTokenHash(token), tokenExpiresAt: expiresAt, tokenVersion: sql`${extensionInstallations.tokenVersion} + 1` })
    .where(eq(extensionInstallations.id, row.id))
    .run();
  return { delegationToken: token, tokenExpiresAt: formatTimestamp(expiresAt) };
}
