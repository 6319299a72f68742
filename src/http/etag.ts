/** Serialised answers by answer object: the domain keeps one object per ETag, so this keeps one string. */
const serialised = new WeakMap<object, string>();

/**
 * Conditional GET (RFC 9110 §13.1.2): the answer carries its ETag, and a request whose
 * If-None-Match lists it (or `*`) gets 304 without a body. `private, no-cache`: the answer depends
 * on who asks, so shared caches keep none and clients revalidate every time. The JSON of an answer
 * object is made once (answers of 10k contacts are ~0.5 MB: serialising them was most of a read).
 */
export function conditional<T extends object>(request: Request, r: { etag: string; body: T }): T {
  const headers = { etag: r.etag, "cache-control": "private, no-cache" };
  const header = request.headers.get("if-none-match");
  // Elysia sends a returned Response as it is; typed as T so the route keeps its 200 schema
  if (header !== null && header.split(",").some((t) => ((t = t.trim().replace(/^W\//, "")), t === r.etag || t === "*"))) {
    return new Response(null, { status: 304, headers }) as unknown as T;
  }
  let json = serialised.get(r.body);
  if (json === undefined) serialised.set(r.body, (json = JSON.stringify(r.body)));
  return new Response(json, { status: 200, headers: { ...headers, "content-type": "application/json" } }) as unknown as T;
}

/** The OpenAPI entry of that 304. */
export const NOT_MODIFIED = { 304: { description: "Not modified: the If-None-Match ETag is current" } };
