import { Elysia } from "elysia";
import type { Logger } from "../../domain/context.ts";
import { DomainError, type DomainErrorCode } from "../../domain/errors.ts";

export const STATUS_OF: Record<DomainErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal_error: 500,
};

export interface ErrorBody {
  error: string;
  message: string;
}

/**
 * One error shape for the whole node: `{error, message}` with a closed code list, for domain
 * errors, validation failures, unknown routes and crashes alike. 5xx answers carry a generic
 * message; the cause goes to the log with the request id.
 */
export function errorHandler(log: Logger) {
  return new Elysia({ name: "kith/errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    set.headers["content-type"] = "application/json";
    if (error instanceof DomainError) {
      set.status = STATUS_OF[error.code];
      if (error.retryAfterSeconds !== undefined) set.headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
      if (set.status >= 500) log.error("request failed", { reqId: set.headers["x-request-id"], errorCode: error.code, cause: describe(error.cause), path: pathOf(request) });
      return body(error.code, error.message);
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
  });
}

export function body(error: string, message: string): ErrorBody {
  return { error, message };
}

function pathOf(request: Request): string {
  try {
    return new URL(request.url).pathname;
  } catch {
    return "?";
  }
}

/**
 * A readable one-line summary of the first few issues, `where: what`. Elysia flattens valibot's
 * issue paths into "[object Object]", so the standard schema is run again for its real paths.
 */
function validationMessage(error: unknown): string {
  const e = error as { validator?: { schema?: unknown }; value?: unknown; type?: string; all?: Array<{ summary?: string; message?: string }> };
  const where = e.type === "query" ? "query" : e.type === "params" ? "path" : e.type === "headers" ? "header" : "body";
  const standard = (e.validator?.schema as { "~standard"?: { validate(v: unknown): unknown } } | undefined)?.["~standard"];
  const result = standard?.validate(e.value) as { issues?: Array<{ message: string; path?: Array<{ key?: unknown } | PropertyKey> }> } | undefined;
  const issues = result && !(result instanceof Promise) && Array.isArray(result.issues) ? result.issues : null;
  const parts = issues
    ? issues.slice(0, 5).map((i) => {
        const path = (i.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".");
        return `${path ? `${where}.${path}` : where}: ${i.message}`;
      })
    : (e.all ?? []).slice(0, 5).map((i) => `${where}: ${i.summary ?? i.message ?? "invalid"}`);
  return parts.length > 0 ? `invalid request: ${parts.join("; ")}` : "invalid request";
}

function describe(error: unknown): unknown {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack?.split("\n").slice(0, 6).join("\n") };
  return String(error);
}
