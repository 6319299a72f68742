import { decodeUtf8 } from "../../../ink/bytes.ts";
import type { With } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { MAX_MANIFEST_BYTES } from "./manifest.ts";

/** Where a manifest comes from. `marketplace` (this node's listings) is the marketplace issue's: one more case here. */
export type ManifestSource = { source: "inline"; manifest: unknown } | { source: "url"; manifestUrl: string };

/**
 * The manifest document of an install or an update, unparsed. A URL is fetched through the SSRF
 * gate (ctx.peers.http: host classification, pinned addresses, no redirects, a size cap, a
 * timeout); its bytes are then pinned by the manifestHash the owner consented to.
 */
export async function resolveManifest(ctx: With<"peers">, from: ManifestSource): Promise<unknown> {
  switch (from.source) {
    case "inline":
      return from.manifest;
    case "url": {
      if (!/^https:\/\//.test(from.manifestUrl) && !ctx.peers.allowPrivatePeers) throw new DomainError("invalid_input", "manifestUrl: an https URL");
      const res = await ctx.peers.http.request(from.manifestUrl, { method: "GET", headers: { accept: "application/json" }, maxBytes: MAX_MANIFEST_BYTES * 2, timeoutMs: 10_000 });
      if (!res.ok) throw new DomainError("unprocessable", `the manifest could not be fetched: ${res.reason}`, { reason: "manifest_unavailable" });
      if (res.status !== 200) throw new DomainError("unprocessable", `the manifest URL answered ${res.status}`, { reason: "manifest_unavailable" });
      const text = decodeUtf8(res.body);
      try {
        if (text === null) throw new Error("utf8");
        return JSON.parse(text);
      } catch {
        throw new DomainError("unprocessable", "the manifest URL did not answer a JSON document", { reason: "manifest_unavailable" });
      }
    }
  }
}
