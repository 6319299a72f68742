// Which INK conformance profile each vector category belongs to, and where Kith stands to each
// profile (docs/decisions/ink-profiles.md). The profile tag comes from the newest upstream
// manifest in the fixtures; the few categories no manifest lists are tagged here, with why.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "./fixtures.ts";

const NEWEST_MANIFEST = join(FIXTURES, "conformance-v1", "manifest-history", "manifest.b9b6c8ef.json");

/** Categories in no upstream manifest (see the fixtures' provenance notes). */
const UNLISTED: Record<string, string> = {
  // INK-R81 (ER7 `unsupported_intent`) is a base row; the file pins its grammar and disposition order.
  "intent-vocabulary": "base",
};

/**
 * Kith's stand per profile. `implemented`: every category runs and must pass; `notImplemented`:
 * the node neither implements nor advertises it, and its files are listed in NOT_IMPLEMENTED.
 */
export const PROFILE_SUPPORT: Record<string, string> = {
  base: "required of every node",
  encryption: "advertised (keys.encryption), sealed intents sent and received",
  discovery: "served (signed discovery queries to this node's directory)",
  staged: "implemented behind a flag the node leaves off (Phase C)",
  audit: "src/ink functions for the receipts/audit-exchange endpoints to come; not advertised yet",
  witness: "src/ink proof and checkpoint checks; the node runs no witness",
  authorization: "src/ink verification of sign-in challenges and grants; not advertised",
  delegation: "src/ink chain verification the extension runtime builds on; not advertised",
  containment: "src/ink handshake schema and signature checks; no handshake routes, not advertised",
};

/**
 * Categories Kith does not implement, each with where the decision is recorded. The runner names
 * them "not implemented"; a vector file with neither a handler nor an entry here fails.
 */
export const NOT_IMPLEMENTED: Record<string, string> = {
  "agent-card-evidence": "docs/decisions/ink-profiles.md",
  attestation: "docs/decisions/ink-profiles.md",
  "evidence-refusal": "docs/decisions/ink-profiles.md",
};

let manifest: Map<string, string> | null = null;

/** The profile tag of a category (newest manifest, else UNLISTED), or null when nobody tags it. */
export function profileOf(category: string): string | null {
  if (manifest === null) {
    const m = JSON.parse(readFileSync(NEWEST_MANIFEST, "utf8")) as { categories: Array<{ id: string; profile: string }> };
    manifest = new Map(m.categories.map((c) => [c.id, c.profile]));
  }
  return manifest.get(category) ?? UNLISTED[category] ?? null;
}
