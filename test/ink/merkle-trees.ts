// RFC 6962 §2.1 trees built by the RFC's own recursive definitions, independent of the verifiers'
// iterative RFC 9162 walks: shared by the consistency, inclusion, receipt and query-response tests.
import { sha256 } from "@noble/hashes/sha2.js";

export const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
export const leaf = (i: number) => sha256(new Uint8Array([0x00, ...new TextEncoder().encode(`event-${i}`)]));
export const node = (l: Uint8Array, r: Uint8Array) => sha256(new Uint8Array([0x01, ...l, ...r]));
export const LEAVES = Array.from({ length: 16 }, (_, i) => leaf(i));
export const flip = (h: string, at: number) => h.slice(0, at) + (h[at] === "0" ? "1" : "0") + h.slice(at + 1);

/** RFC 6962 §2.1: k is the largest power of two smaller than n. */
export function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]). */
export function mth(d: Uint8Array[]): Uint8Array {
  if (d.length === 0) return sha256(new Uint8Array());
  if (d.length === 1) return d[0] as Uint8Array;
  const k = split(d.length);
  return node(mth(d.slice(0, k)), mth(d.slice(k)));
}

/** RFC 6962 §2.1.1 PATH(m, D[n]): the audit path of leaf m, leaf side first. */
export function path(m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length <= 1) return [];
  const k = split(d.length);
  return m < k ? [...path(m, d.slice(0, k)), mth(d.slice(k))] : [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
}
