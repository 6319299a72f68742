/**
 * The closed list of error codes a client can see. Each maps to one HTTP status in
 * `http/plugins/errors.ts`; the message is client-safe, the cause is only logged.
 */
export const DOMAIN_ERROR_CODES = [
  "invalid_input",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "unprocessable",
  "payload_too_large",
  "unsupported_media_type",
  "headers_too_large",
  "rate_limited",
  "unavailable",
  "internal_error",
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly retryAfterSeconds: number | undefined;
  /** A more precise code sent as `error` instead of `code` (the extension API's `token_expired`, `permission_missing`, …). */
  readonly reason: string | undefined;
  /** Extra members of the error body (`required: "connections:list"`). */
  readonly fields: Record<string, unknown> | undefined;

  constructor(code: DomainErrorCode, message: string, options: { cause?: unknown; retryAfterSeconds?: number; reason?: string; fields?: Record<string, unknown> } = {}) {
    super(message, { cause: options.cause });
    this.name = "DomainError";
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.reason = options.reason;
    this.fields = options.fields;
  }
}

