import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { memoBody } from "./state.ts";

/** An ETag for one variant of an answer (the endpoint, with or without member lists, a limit, the day). */
export function variantEtag(etag: string, variant: string): string {
  return `"${bytesToHex(sha256(utf8ToBytes(`${etag}|${variant}`))).slice(0, 24)}"`;
}

/**
 * An answer and its ETag: `base` names the analysis, view and audience (internal/analytics.ts),
 * `variant` the rest the answer depends on; the body is built once per ETag and database.
 */
export function served<T>(db: object, base: string, variant: string, build: () => T): { etag: string; body: T } {
  const etag = variantEtag(base, variant);
  return { etag, body: memoBody(db, etag, build) };
}
