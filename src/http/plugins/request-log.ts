import { Elysia } from "elysia";
import type { Ids, Logger } from "../../domain/context.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

interface Timing {
  id: string;
  start: number;
}

/**
 * Gives every request an id (a well-formed incoming `X-Request-Id` is kept, so a proxy's id
 * follows the request), returns it in `x-request-id`, and logs one line per request with
 * method, path (never the query: it may hold codes), the status the client received and duration.
 */
export function requestLog(log: Logger, ids: Ids) {
  const timings = new WeakMap<Request, Timing>();
  return new Elysia({ name: "kith/request-log" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : ids.next();
      timings.set(request, { id, start: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
      const t = timings.get(request);
      // A route that returns a Response (the INK routes, the card) sets its status there, not in `set`.
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      log.info("request", {
        reqId: t?.id,
        method: request.method,
        path: new URL(request.url, "http://no-host.invalid").pathname, // relative when the Host header is missing or bad
        status,
        ms: t ? Math.round((performance.now() - t.start) * 100) / 100 : undefined,
      });
    })
    .derive({ as: "global" }, ({ request }) => ({ requestId: timings.get(request)?.id ?? "" }));
}
