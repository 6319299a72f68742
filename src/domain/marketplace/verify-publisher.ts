import { eq } from "drizzle-orm";
import { decodeUtf8 } from "../../ink/bytes.ts";
import { marketplaceExtensions } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { approvedManifest } from "../internal/marketplace-manifest.ts";
import { PUBLISHER_VERIFIED_FOR_MS } from "./internal/views.ts";

/** A publisher file is re-fetched at most hourly per extension, and at most 6 times an hour per domain. */
const RECHECK_AFTER_MS = 3600_000;
const PER_DOMAIN = { limit: 6, windowMs: 3600_000 };
const MAX_FILE_BYTES = 65_536;

export interface PublisherCheck {
  extensionId: string;
  domain: string;
  verified: boolean;
  checkedAt: string | null;
}

/**
 * Publisher verification (notes/EXTENSIONS.md §1.4), a badge and never a gate:
 * `https://<publisher.domain>/.well-known/kith-publisher.json` — fetched through the SSRF gate,
 * cached an hour, limited per domain — must list the extension id with every active key of its
 * newest approved manifest: `{"extensions": [{"id": "com.example.app", "keys": ["z6Mk…"]}]}`
 * (a key is its publicKeyMultibase, or an object carrying one). Any failure (unreachable, not
 * JSON, not listed) only leaves the badge off.
 */
export async function verifyPublisher(ctx: With<"peers" | "limiter">, extensionId: string): Promise<PublisherCheck> {
  const row = ctx.db.select().from(marketplaceExtensions).where(eq(marketplaceExtensions.extensionId, extensionId)).get();
  const approved = row ? approvedManifest(ctx.db, extensionId) : null;
  if (!row || !approved) throw new DomainError("not_found", `no approved extension ${extensionId} in this marketplace`);
  const now = ctx.clock.now();
  const stored = (): PublisherCheck => ({
    extensionId,
    domain: row.publisherDomain,
    verified: row.publisherVerifiedAt !== null && now - row.publisherVerifiedAt < PUBLISHER_VERIFIED_FOR_MS,
    checkedAt: row.publisherCheckedAt === null ? null : new Date(row.publisherCheckedAt).toISOString(),
  });
  if (row.publisherCheckedAt !== null && now - row.publisherCheckedAt < RECHECK_AFTER_MS) return stored();
  if (!ctx.limiter.consume("publisher-file", row.publisherDomain, PER_DOMAIN, now).allowed) return stored();
  const verified = await listsExtension(ctx, row.publisherDomain, extensionId, activeKeys(approved.manifest));
  ctx.db.update(marketplaceExtensions).set({ publisherVerifiedAt: verified ? now : null, publisherCheckedAt: now }).where(eq(marketplaceExtensions.extensionId, extensionId)).run();
  ctx.log.info("publisher file checked", { extensionId, domain: row.publisherDomain, verified });
  return { extensionId, domain: row.publisherDomain, verified, checkedAt: new Date(now).toISOString() };
}

function activeKeys(manifest: unknown): string[] {
  const keys = (manifest as { keys?: Array<{ publicKeyMultibase: string; status: string }> }).keys ?? [];
  return keys.filter((k) => k.status === "active").map((k) => k.publicKeyMultibase);
}

async function listsExtension(ctx: With<"peers">, domain: string, extensionId: string, keys: string[]): Promise<boolean> {
  const res = await ctx.peers.http.request(`https://${domain}/.well-known/kith-publisher.json`, { method: "GET", headers: { accept: "application/json" }, maxBytes: MAX_FILE_BYTES, timeoutMs: 5_000 });
  if (!res.ok || res.status !== 200) return false;
  let doc: unknown;
  try {
    doc = JSON.parse(decodeUtf8(res.body) ?? "");
  } catch {
    return false;
  }
  const entries = (doc as { extensions?: unknown })?.extensions;
  if (!Array.isArray(entries)) return false;
  const entry = entries.find((e) => (e as { id?: unknown })?.id === extensionId) as { keys?: unknown } | undefined;
  if (!entry || !Array.isArray(entry.keys)) return false;
  const listed = new Set(entry.keys.map((k) => (typeof k === "string" ? k : (k as { publicKeyMultibase?: unknown })?.publicKeyMultibase)).filter((k): k is string => typeof k === "string"));
  return keys.length > 0 && keys.every((k) => listed.has(k));
}
