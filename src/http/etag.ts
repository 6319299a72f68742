/**
 * Conditional GET (RFC 9110 §13.1.2): the answer carries its ETag, and a request whose
 * If-None-Match lists it (or `*`) gets 304 without a body. `private, no-cache`: the answer depends
 * on who asks, so shared caches keep none and clients revalidate every time.
 */
export function conditional<T>(request: Request, set: { headers: Record<string, string | number> }, r: { etag: string; body: T }): T {
  set.headers["etag"] = r.etag;
  set.headers["cache-control"] = "private, no-cache";
  const header = request.headers.get("if-none-match");
  if (header !== null && header.split(",").some((t) => ((t = t.trim().replace(/^W\//, "")), t === r.etag || t === "*"))) {
    // Elysia sends a returned Response as it is; typed as T so the route keeps its 200 schema
    return new Response(null, { status: 304, headers: { etag: r.etag, "cache-control": "private, no-cache" } }) as unknown as T;
  }
  return r.body;
}

/** The OpenAPI entry of that 304. */
export const NOT_MODIFIED = { 304: { description: "Not modified: the If-None-Match ETag is current" } };
