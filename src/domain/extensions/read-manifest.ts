import type { With } from "../context.ts";
import { type Manifest, manifestHashOf, parseManifest } from "./internal/manifest.ts";
import { type ManifestSource, resolveManifest } from "./internal/resolve-manifest.ts";

export interface ReadManifest {
  /** The document as received (what the hash covers). */
  document: unknown;
  manifest: Manifest;
  manifestHash: string;
}

/**
 * A manifest from any source, fetched (a URL goes through the SSRF gate), validated member by
 * member (400 naming the member) and hashed: what the marketplace's submit and the install verb
 * both start from.
 */
export async function readManifest(ctx: With<"peers">, from: ManifestSource): Promise<ReadManifest> {
  const document = await resolveManifest(ctx, from);
  return { document, manifest: parseManifest(document), manifestHash: manifestHashOf(document) };
}
