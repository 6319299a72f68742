import { decodeUtf8 } from "../../../ink/bytes.ts";
import type { With } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { approvedManifest } from "../../internal/marketplace-manifest.ts";
import { MAX_MANIFEST_BYTES } from "./manifest.ts";

/** Where a manifest comes from. */
export type ManifestSource =
  | { source: "inline"; manifest: unknown }
  | { source: "url"; manifestUrl: string }
  | { source: "marketplace"; extensionId: string; version?: string | undefined; marketplaceUrl?: string | undefined };

/**
 * The manifest document of an install or an update, unparsed. A URL is fetched through the SSRF
 * gate (ctx.peers.http: host classification, pinned addresses, no redirects, a size cap, a
 * timeout); its bytes are then pinned by the manifestHash the owner consented to.
 */
export async function resolveManifest(ctx: With<"peers">, from: ManifestSource): Promise<unknown> {
  switch (from.source) {
    case "inline":
      return from.manifest;
    case "url":
      return fetchJson(ctx, from.manifestUrl, "manifestUrl");
    case "marketplace":
      return fromMarketplace(ctx, from);
  }
}

/**
 * The approved manifest of a marketplace listing: this node's own (its tables), or another node's
 * marketplace asked over HTTPS for `GET /marketplace/extensions/:id` through the same SSRF gate.
 * Either way the install then pins the document by the hash the consent screen showed.
 */
async function fromMarketplace(ctx: With<"peers">, from: Extract<ManifestSource, { source: "marketplace" }>): Promise<unknown> {
  if (from.marketplaceUrl === undefined) {
    const local = approvedManifest(ctx.db, from.extensionId, from.version);
    if (!local) throw new DomainError("not_found", `${from.extensionId}${from.version ? `@${from.version}` : ""} is not installable from this node's marketplace (no approved version, or delisted)`);
    return local.manifest;
  }
  const base = from.marketplaceUrl.replace(/\/+$/, "");
  const details = await fetchJson(ctx, `${base}/marketplace/extensions/${encodeURIComponent(from.extensionId)}`, "marketplaceUrl");
  const manifest = typeof details === "object" && details !== null ? (details as { manifest?: unknown }).manifest : undefined;
  if (typeof manifest !== "object" || manifest === null || (manifest as { id?: unknown }).id !== from.extensionId) {
    throw new DomainError("unprocessable", `the marketplace did not answer a manifest for ${from.extensionId}`, { reason: "manifest_unavailable" });
  }
  if (from.version !== undefined && (manifest as { version?: unknown }).version !== from.version) {
    throw new DomainError("unprocessable", `the marketplace offers ${from.extensionId}@${String((manifest as { version?: unknown }).version)}, not ${from.version}`, { reason: "manifest_unavailable" });
  }
  return manifest;
}

async function fetchJson(ctx: With<"peers">, url: string, member: string): Promise<unknown> {
  if (!/^https:\/\//.test(url) && !ctx.peers.allowPrivatePeers) throw new DomainError("invalid_input", `${member}: an https URL`);
  const res = await ctx.peers.http.request(url, { method: "GET", headers: { accept: "application/json" }, maxBytes: MAX_MANIFEST_BYTES * 4, timeoutMs: 10_000 });
  if (!res.ok) throw new DomainError("unprocessable", `the manifest could not be fetched: ${res.reason}`, { reason: "manifest_unavailable" });
  if (res.status !== 200) throw new DomainError("unprocessable", `${member} answered ${res.status}`, { reason: "manifest_unavailable" });
  const text = decodeUtf8(res.body);
  try {
    if (text === null) throw new Error("utf8");
    return JSON.parse(text);
  } catch {
    throw new DomainError("unprocessable", `${member} did not answer a JSON document`, { reason: "manifest_unavailable" });
  }
}
