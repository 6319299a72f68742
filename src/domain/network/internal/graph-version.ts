import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { GraphInput } from "./structure.ts";

/** Content hash of the graph (ids, ties, weights to 1/100): the same graph has the same version. */
export function graphVersionOf(input: GraphInput): string {
  const h = sha256.create();
  h.update(new TextEncoder().encode(input.ids.join("\n")));
  h.update(new Uint8Array(input.edges.a.buffer, input.edges.a.byteOffset, input.edges.a.byteLength));
  h.update(new Uint8Array(input.edges.b.buffer, input.edges.b.byteOffset, input.edges.b.byteLength));
  const w = input.edges.w;
  const rounded = new Int32Array(w.length);
  for (let i = 0; i < w.length; i++) rounded[i] = Math.round(w[i]! * 100);
  h.update(new Uint8Array(rounded.buffer));
  return `g_${bytesToHex(h.digest()).slice(0, 20)}`;
}
