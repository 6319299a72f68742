import type { Logger } from "../domain/context.ts";
import { body } from "./plugins/errors.ts";

/**
 * Bun.serve settings of every listening node (kith serve and the test servers). Bun refuses
 * some requests itself, before the app sees them, with an empty body: a body over
 * `maxRequestBodySize` (413), a header block over its 16 KiB (431), broken framing (400). So
 * Bun's body limit is lifted and every read is bounded by the app instead (the request gate,
 * the raw INK routes, the upload route), whose 413 says what the limit is; a header block over
 * the gate's own limit gets a 431 with a body too. What Bun still refuses by itself cannot be
 * shaped by the node (docs/decisions/request-limits.md).
 */
export function serverOptions(log: Logger) {
  return {
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    error(e: Error): Response {
      log.error("server error", { cause: e });
      return Response.json(body("internal_error", "internal error"), { status: 500 });
    },
  };
}
