import { Elysia, type ErrorHandler } from "elysia";
import type { Logger } from "../../domain/context.ts";
import { DomainError, type DomainErrorCode } from "../../domain/errors.ts";
import { inkErrorResponse, InkRefusal } from "../ink-errors.ts";
import { serializedPath } from "../request-path.ts";
import { issueMessage } from "../schemas/body.ts";

export const STATUS_OF: Record<DomainErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  unavailable: 503,
  internal_error: 500,
};

export interface ErrorBody {
  error: string;
  message: string;
}

/**
 * What each refused request was answered with (INK's reason, or the body's `error`), for the
 * metrics the request log records (request-log.ts): a closed set, so it can be a label.
 */
const refusals = new WeakMap<Request, string>();
export const refusalOf = (request: Request): string | undefined => refusals.get(request);

/**
 * One error shape for the whole node: `{error, message}` with a closed code list, for domain
 * errors, validation failures, unknown routes and crashes alike; the INK endpoints' refusals add
 * INK's fields (ink-errors.ts). 5xx answers carry a generic message; the cause goes to the log
 * with the request id.
 */
export function errorHandler(log: Logger) {
  // Destructured in the parameter list: Elysia reads a hook's source to decide what every route
  // prepares (sucrose); a context passed on whole makes each route parse cookies, headers and query.
  return new Elysia({ name: "kith/errors" }).onError({ as: "global" }, ({ code, error: thrown, set, request }) => {
    if (thrown instanceof InkRefusal) {
      refusals.set(request, thrown.reason);
      const response = inkErrorResponse(thrown);
      set.status = response.status; // what the request log reads
      return response;
    }
    const answer = answerOf({ code, error: thrown, set, request });
    refusals.set(request, answer.error);
    return answer;
  });

  function answerOf({ code, error: thrown, set, request }: Pick<Parameters<ErrorHandler>[0], "code" | "error" | "set" | "request">): ErrorBody {
    set.headers["content-type"] = "application/json";
    // Elysia wraps whatever a parse hook throws (the request gate's refusals) in a ParseError.
    const cause = code === "PARSE" ? (thrown as { cause?: unknown }).cause : undefined;
    const error = cause instanceof DomainError ? cause : thrown;
    if (error instanceof DomainError) {
      set.status = STATUS_OF[error.code];
      if (error.retryAfterSeconds !== undefined) set.headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
      if (set.status >= 500) log.error("request failed", { reqId: set.headers["x-request-id"], errorCode: error.code, cause: describe(error.cause), path: pathOf(request) });
      return { ...error.fields, ...body(error.reason ?? error.code, error.message) };
    }
    switch (code) {
      case "NOT_FOUND":
        set.status = 404;
        return body("not_found", `no route for ${request.method} ${pathOf(request)}`);
      case "VALIDATION": {
        const onResponse = (error as { type?: string }).type === "response";
        if (onResponse) {
          set.status = 500;
          log.error("response failed its own schema", { reqId: set.headers["x-request-id"], path: pathOf(request), cause: describe(error) });
          return body("internal_error", "internal error");
        }
        set.status = 400;
        return body("invalid_input", validationMessage(error));
      }
      case "PARSE":
        set.status = 400;
        return body("invalid_input", "the request body is not valid for its content type");
      case "INVALID_COOKIE_SIGNATURE":
      case "INVALID_FILE_TYPE":
        set.status = 400;
        return body("invalid_input", "invalid request");
      default:
        set.status = 500;
        log.error("unhandled error", { reqId: set.headers["x-request-id"], path: pathOf(request), cause: describe(error) });
        return body("internal_error", "internal error");
    }
  }
}

/** A message quoting what was sent (a verb's `"…" is not one of …`) is cut: an error never carries much of a body. */
const MAX_MESSAGE = 500;

export function body(error: string, message: string): ErrorBody {
  return { error, message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message };
}

function pathOf(request: Request): string {
  try {
    return serializedPath(request.url) ?? new URL(request.url).pathname;
  } catch {
    return "?";
  }
}

/**
 * `invalid request: where.path: what` from the first issue Elysia already has (query, path and
 * header schemas; bodies never get here, see schemas/body.ts). Nothing is validated again.
 */
function validationMessage(error: unknown): string {
  const e = error as { type?: string; valueError?: unknown };
  const where = e.type === "query" ? "query" : e.type === "params" ? "path" : e.type === "headers" ? "header" : "body";
  const issue = e.valueError as { message?: unknown } | undefined;
  return typeof issue?.message === "string" ? `invalid request: ${issueMessage(issue as never, where)}` : "invalid request";
}

function describe(error: unknown): unknown {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack?.split("\n").slice(0, 6).join("\n") };
  return String(error);
}
