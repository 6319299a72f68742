import { readBounded } from "../../security/bounded-read.ts";

/**
 * Reads a signed request's body once, as bytes, never more than `max` (INK: signatures are
 * checked on the exact bytes, so nothing may parse the body first). A declared or streamed body
 * over the cap answers `null` without reading the rest.
 */
export async function readRawBody(request: Request, max: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared && /^\d+$/.test(declared) && Number(declared) <= max) {
    // A declared length within the cap: the runtime enforces it, so read in one native call.
    return new Uint8Array(await request.arrayBuffer());
  }
  return readBounded(request.body, max, declared);
}

/** `application/json`, optionally with a utf-8 charset (the only JSON INK peers send). */
export function isJsonRequest(request: Request): boolean {
  const value = request.headers.get("content-type");
  if (!value) return false;
  const [type, ...params] = value.split(";").map((p) => p.trim().toLowerCase());
  if (type !== "application/json") return false;
  return params.every((p) => !p.startsWith("charset=") || p.replace(/"/g, "") === "charset=utf-8");
}
