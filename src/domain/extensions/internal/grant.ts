import { sha256 } from "@noble/hashes/sha2.js";
import { DUNBAR_LAYERS } from "../../../db/schema/connections.ts";
import { toHex, utf8 } from "../../../ink/bytes.ts";
import { tierRank, type AutonomyTier } from "../../../security/extension-token.ts";
import { DomainError } from "../../errors.ts";
import type { Grant } from "./installation-row.ts";
import type { Manifest } from "./manifest.ts";

/** What the owner asks for (the body of PUT …/permissions, `grant` of an install). */
export interface GrantRequest {
  permissions: string[];
  layers: string[];
  maxAutonomyTier?: AutonomyTier | undefined;
}

/**
 * A grant is always a subset of the manifest (EXTENSIONS §1.5): every required permission, no
 * permission or layer the manifest does not ask for, no tier above the manifest's. 422 with the
 * rule's own code otherwise.
 */
export function checkGrant(manifest: Manifest, input: GrantRequest): Grant {
  const asked = new Map(manifest.permissions.map((p) => [p.name as string, p.required]));
  for (const p of input.permissions) if (!asked.has(p)) throw refuse("permission_not_requested", `the manifest does not ask for ${p}`);
  for (const [name, required] of asked) if (required && !input.permissions.includes(name)) throw refuse("required_permission_missing", `${name} is required by the extension`);
  const layers = manifest.layers?.requested ?? [];
  for (const l of input.layers) if (!(layers as string[]).includes(l)) throw refuse("layer_not_requested", `the manifest does not ask for the ${l} layer`);
  const ceiling: AutonomyTier = manifest.maxAutonomyTier ?? "transactional";
  const tier = input.maxAutonomyTier ?? ceiling;
  if (tierRank(tier) > tierRank(ceiling)) throw refuse("tier_above_manifest", `the manifest asks for at most ${ceiling}`);
  return { permissions: [...new Set(input.permissions)].sort(), layers: DUNBAR_LAYERS.filter((l) => input.layers.includes(l)), maxAutonomyTier: tier };
}

/** True when `next` asks for nothing `current` did not (a manifest update that needs no consent). */
export function asksNoMore(current: Manifest, next: Manifest): boolean {
  const had = new Set(current.permissions.map((p) => p.name));
  const layers = new Set(current.layers?.requested ?? []);
  const intents = new Set(current.intents ?? []);
  return (
    next.permissions.every((p) => had.has(p.name)) &&
    (next.layers?.requested ?? []).every((l) => layers.has(l)) &&
    (next.intents ?? []).every((i) => intents.has(i)) &&
    tierRank(next.maxAutonomyTier ?? "transactional") <= tierRank(current.maxAutonomyTier ?? "transactional")
  );
}

/** An installation id in UUID form (SPEC) from the node's id source, so tests stay deterministic. */
export function installationUuid(id: string): string {
  const h = toHex(sha256(utf8(`installation:${id}`)));
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function refuse(reason: string, message: string): DomainError {
  return new DomainError("unprocessable", message, { reason });
}
