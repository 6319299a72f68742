import { DomainError } from "../../errors.ts";

/**
 * The codes of SPEC's seven checks, in SPEC's order (Authentication §2). A request failing two
 * checks answers the earlier one's; each is a 401 of its own (docs/extensions.md).
 */
export const CHECK_CODES = ["token_invalid", "token_expired", "token_revoked", "installation_inactive", "timestamp_out_of_window", "nonce_replayed", "signature_invalid"] as const;
export type CheckCode = (typeof CHECK_CODES)[number];

export function unauthorized(code: CheckCode, message: string): DomainError {
  return new DomainError("unauthorized", message, { reason: code });
}

/** Extension nonces live beside INK's in inbound_nonces, one scope per installation (pruned after 15 min). */
export function nonceScope(installationId: string): string {
  return `ext:${installationId}`;
}
