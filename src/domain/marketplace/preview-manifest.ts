import * as v from "valibot";
import type { With } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { readManifest } from "../extensions/read-manifest.ts";
import { PERMISSION_TITLES } from "./internal/views.ts";

export const PreviewManifestInput = v.strictObject({
  manifestUrl: v.pipe(v.string(), v.minLength(1), v.maxLength(2048), v.description("Where the manifest is served: fetched once through the SSRF gate")),
});
export type PreviewManifestInput = v.InferOutput<typeof PreviewManifestInput>;

export interface ManifestPreview {
  extensionId: string;
  name: string;
  summary: string;
  version: string;
  publisher: { name: string; domain: string };
  manifest: unknown;
  manifestHash: string;
  permissionsSummary: Array<{ name: string; required: boolean; reason: string; title: string }>;
  layersRequested: { requested: string[]; reason: string } | null;
  maxAutonomyTier: string | null;
  intents: string[];
}

/**
 * What a consent screen shows for an extension installed from a URL (notes/EXTENSIONS.md §1.5):
 * the manifest fetched through the SSRF gate, validated (400 naming the member), hashed, and each
 * permission in the same plain words the marketplace uses. Nothing is stored; the install then pins
 * the hash shown here (409 manifest_changed if the URL serves other bytes by then).
 */
export async function previewManifest(ctx: With<"peers">, input: PreviewManifestInput): Promise<ManifestPreview> {
  requireOwner(ctx, "previews extensions");
  const { document, manifest, manifestHash } = await readManifest(ctx, { source: "url", manifestUrl: input.manifestUrl });
  return {
    extensionId: manifest.id,
    name: manifest.name,
    summary: manifest.summary,
    version: manifest.version,
    publisher: { name: manifest.publisher.name, domain: manifest.publisher.domain },
    manifest: document,
    manifestHash,
    permissionsSummary: manifest.permissions.map((p) => ({ name: p.name, required: p.required, reason: p.reason, title: PERMISSION_TITLES[p.name] ?? p.name })),
    layersRequested: manifest.layers ?? null,
    maxAutonomyTier: manifest.maxAutonomyTier ?? null,
    intents: manifest.intents ?? [],
  };
}
