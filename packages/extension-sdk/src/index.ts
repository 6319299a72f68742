// @kith/extension-sdk: a client for Kith's extension API (/ext/v1), zero runtime dependencies,
// Node 20+ and Bun. Guide: ../README.md. Wire rules: docs/extensions.md in the Kith repository.
export { KithClient, type KithClientOptions } from "./client.ts";
export { canonicalString, signRequest, EMPTY_BODY_SHA256, type SignableRequest, type SignedHeaders } from "./signing.ts";
export { generateKeyPair, publicKeyOf, importPrivateKey, sha256Hex, type PrivateKeyInput } from "./crypto.ts";
export { decodeToken, verifyToken, TOKEN_DOMAIN, needsRenewal, TokenManager, type DelegationPayload, type TokenStore } from "./token.ts";
export { fileCursorStore, memoryCursorStore, type Cursor, type CursorStore, type Gap, type StreamOptions, type ListEventsOptions } from "./events.ts";
export { auditEventHash, verifyAuditChain, type ChainFailure, type ChainResult, type VerifyChainOptions } from "./audit.ts";
export { canonicalJson, CanonicalJsonError } from "./jcs.ts";
export { decodeEd25519Multibase, encodeEd25519Multibase, toBase64url, fromBase64url } from "./encoding.ts";
export { AuthError, KithError, NetworkError, NotFoundError, PermissionError, RateLimitError, RequestError, ServerError, parseRetryAfter } from "./errors.ts";
export type * from "./types.ts";
