import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { ExtensionActor } from "../../context.ts";
import { DUNBAR_LAYERS, type DunbarLayer } from "../../relationships/names.ts";

/** The installation's granted layers, as the analytics read them (unknown names grant nothing). */
export function grantedLayers(actor: ExtensionActor): Set<DunbarLayer> {
  return new Set(DUNBAR_LAYERS.filter((l) => actor.layers.includes(l)));
}

/** An ETag for one variant of an answer (e.g. with or without member lists). */
export function variantEtag(etag: string, variant: string): string {
  return `"${bytesToHex(sha256(utf8ToBytes(`${etag}|${variant}`))).slice(0, 24)}"`;
}
