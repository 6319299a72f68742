import type { InstallationKey } from "./installation-row.ts";
import type { Manifest } from "./manifest.ts";

/** A rotated-out key keeps verifying requests this long (EXTENSIONS §1.5). */
export const KEY_GRACE_MS = 24 * 3600_000;

/** The new manifest's keys; an old active key it drops stays usable for KEY_GRACE_MS. */
export function rotateKeys(current: InstallationKey[], next: Manifest, now: number): InstallationKey[] {
  const keys: InstallationKey[] = next.keys.map((k) => ({ keyId: k.keyId, publicKeyMultibase: k.publicKeyMultibase, status: k.status }));
  for (const old of current) {
    if (old.status !== "active" || keys.some((k) => k.publicKeyMultibase === old.publicKeyMultibase)) continue;
    keys.push({ keyId: old.keyId, publicKeyMultibase: old.publicKeyMultibase, status: "retired", graceUntil: now + KEY_GRACE_MS });
  }
  return keys;
}
