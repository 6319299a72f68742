import { Elysia } from "elysia";
import type { Ids, Logger, Metrics } from "../../domain/context.ts";
import { serializedPath } from "../request-path.ts";
import { refusalOf } from "./errors.ts";
import { extensionInstallationOf } from "./extension-auth.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

interface Timing {
  id: string;
  start: number;
}

/** The routes that receive INK intents, and those where an owner sign-in is refused (4xx). */
const INTENT_ROUTES = new Set(["/ink/v1/:agentId/intent", "/agents/:agentId/inbox"]);
const SIGN_IN_ROUTES = new Set(["/auth/email/verify", "/auth/:provider/callback", "/auth/refresh"]);

/**
 * Gives every request an id (a well-formed incoming `X-Request-Id` is kept, so a proxy's id
 * follows the request), returns it in `x-request-id`, and logs one line per request with
 * method, path (never the query: it may hold codes), the status the client received and duration.
 * The same hook counts it for /metrics: by route template (never the path: ids would make every
 * request a new series), INK intents by outcome and reason, refused sign-ins, extension requests.
 */
export function requestLog(log: Logger, ids: Ids, metrics?: Metrics) {
  const timings = new WeakMap<Request, Timing>();
  return new Elysia({ name: "kith/request-log" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : ids.next();
      timings.set(request, { id, start: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, responseValue, route }) => {
      const t = timings.get(request);
      // A route that returns a Response (the INK routes, the card) sets its status there, not in `set`.
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      log.info("request", {
        reqId: t?.id,
        method: request.method,
        path: serializedPath(request.url) ?? new URL(request.url, "http://no-host.invalid").pathname, // relative when the Host header is missing or bad
        status,
        ms: t ? Math.round((performance.now() - t.start) * 100) / 100 : undefined,
      });
      if (metrics) count(metrics, request, route, status);
    });
}

function count(metrics: Metrics, request: Request, route: string | undefined, status: number): void {
  const template = route ?? "(unmatched)";
  metrics.request(request.method, template, status);
  if (INTENT_ROUTES.has(template) && request.method === "POST") {
    if (status === 200) metrics.inkIntent("accepted", "");
    else if (status === 202) metrics.inkIntent("held", "");
    else metrics.inkIntent("refused", refusalOf(request) ?? `http_${status}`);
  }
  if (SIGN_IN_ROUTES.has(template) && status >= 400 && status < 500) metrics.signInFailure(template);
  // The extension API (SPEC Authentication §2): refused ones too, by the code the extension got.
  if (template.startsWith("/ext/v1/")) metrics.extensionCall(extensionInstallationOf(request), `${request.method} ${template}`, status < 400 ? "ok" : (refusalOf(request) ?? `http_${status}`));
}
