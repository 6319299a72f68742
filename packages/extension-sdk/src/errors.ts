// Typed errors for every answer that is not a success (SPEC "Errors": `{error, message?}` bodies).
// `code` is the node's `error` string: for a 401 it names the check that failed (token_invalid,
// token_expired, token_revoked, installation_inactive, timestamp_out_of_window, nonce_replayed,
// signature_invalid); for a 403 `permission_missing` the `required` permission is given.

export type ErrorBody = { error?: unknown; message?: unknown; required?: unknown; [key: string]: unknown };

export class KithError extends Error {
  override name = "KithError";
  constructor(
    /** HTTP status, or 0 when no answer came back (network error, timeout). */
    readonly status: number,
    /** The node's `error` code (`network_error` / `timeout` when there was no answer). */
    readonly code: string,
    message: string,
    /** The full parsed error body, when there was one. */
    readonly body: ErrorBody | null = null,
    /** The `X-Request-Id` of the answer, to quote when asking the node's owner. */
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}

/** 401: one of the seven authentication checks failed; `code` says which. */
export class AuthError extends KithError {
  override name = "AuthError";
}

/** 403: the installation lacks a permission (`required`), or the intent type is not declared. */
export class PermissionError extends KithError {
  override name = "PermissionError";
  get required(): string | null {
    return typeof this.body?.required === "string" ? this.body.required : null;
  }
}

/** 404: absent — including a contact outside the granted layers, which looks the same on purpose. */
export class NotFoundError extends KithError {
  override name = "NotFoundError";
}

/** 400 / 409 / 413 / 415 / 422: the request itself is wrong; retrying it unchanged will not help. */
export class RequestError extends KithError {
  override name = "RequestError";
}

/** 429: slow down; `retryAfter` is in seconds (null when the node gave no hint). */
export class RateLimitError extends KithError {
  override name = "RateLimitError";
  constructor(status: number, code: string, message: string, body: ErrorBody | null, requestId: string | null, readonly retryAfter: number | null) {
    super(status, code, message, body, requestId);
  }
}

/** 5xx: the node failed; safe reads are retried before this reaches you. */
export class ServerError extends KithError {
  override name = "ServerError";
}

/** No answer at all: connection refused or reset, DNS failure, or the timeout ran out. */
export class NetworkError extends KithError {
  override name = "NetworkError";
}

/** `Retry-After` as seconds: an integer, or an HTTP date turned into seconds from `now`. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export function errorFromResponse(status: number, body: ErrorBody | null, headers: Headers): KithError {
  const code = typeof body?.error === "string" ? body.error : `http_${status}`;
  const message = typeof body?.message === "string" ? body.message : `the node answered ${status}`;
  const requestId = headers.get("x-request-id");
  if (status === 401) return new AuthError(status, code, message, body, requestId);
  if (status === 403) return new PermissionError(status, code, message, body, requestId);
  if (status === 404) return new NotFoundError(status, code, message, body, requestId);
  if (status === 429) return new RateLimitError(status, code, message, body, requestId, parseRetryAfter(headers.get("retry-after")));
  if (status >= 500) return new ServerError(status, code, message, body, requestId);
  return new RequestError(status, code, message, body, requestId);
}
