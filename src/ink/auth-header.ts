// `Authorization: INK-Ed25519 <sig>[ keyId=<id>]` (INK §6.2, frozen): exact grammar, literal
// single spaces, no other parameter, no trailing data.

const HEADER = /^INK-Ed25519 ([A-Za-z0-9_-]{86})(?: keyId=([A-Za-z0-9_:.-]{1,128}))?$/;
const KEY_ID = /^[A-Za-z0-9_:.-]{1,128}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;
// Reference pre-check: longer headers are refused before matching.
const MAX_HEADER_LENGTH = 512;

export type AuthHeaderReason = "missing_authorization" | "invalid_auth_scheme";

export type ParsedAuthHeader =
  | { ok: true; signature: string; keyId: string | null }
  | { ok: false; reason: AuthHeaderReason };

/** Parse an Authorization header value; absent or empty is `missing_authorization`. */
export function parseAuthorizationHeader(header: unknown): ParsedAuthHeader {
  if (header === undefined || header === null || header === "") return { ok: false, reason: "missing_authorization" };
  if (typeof header !== "string" || header.length > MAX_HEADER_LENGTH) return { ok: false, reason: "invalid_auth_scheme" };
  const m = HEADER.exec(header);
  if (m === null) return { ok: false, reason: "invalid_auth_scheme" };
  return { ok: true, signature: m[1] as string, keyId: m[2] ?? null };
}

/** True when a keyId can travel in the header (card keyIds have no charset, [C11]). */
export function isHeaderKeyId(keyId: unknown): keyId is string {
  return typeof keyId === "string" && KEY_ID.test(keyId);
}

export type BuiltAuthHeader = { ok: true; header: string } | { ok: false; reason: "invalid_signature" | "invalid_key_id" };

/**
 * Build the header; refuses a non-86-char signature or a keyId outside the header charset
 * (header injection). A keyId that cannot be hinted here travels as body `signingKeyId` only.
 */
export function buildAuthorizationHeader(signature: string, keyId?: string | null): BuiltAuthHeader {
  if (typeof signature !== "string" || !SIGNATURE.test(signature)) return { ok: false, reason: "invalid_signature" };
  if (keyId === undefined || keyId === null) return { ok: true, header: `INK-Ed25519 ${signature}` };
  if (!isHeaderKeyId(keyId)) return { ok: false, reason: "invalid_key_id" };
  return { ok: true, header: `INK-Ed25519 ${signature} keyId=${keyId}` };
}
