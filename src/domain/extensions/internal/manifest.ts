import { sha256 } from "@noble/hashes/sha2.js";
import * as v from "valibot";
import { DUNBAR_LAYERS } from "../../../db/schema/connections.ts";
import { toHex, utf8 } from "../../../ink/bytes.ts";
import { canonicalize, decodeEd25519PublicKey } from "../../../ink/index.ts";
import { AUTONOMY_TIERS } from "../../../security/extension-token.ts";
import { DomainError } from "../../errors.ts";
import { CONTACT_PERMISSIONS, EXTENSION_INTENTS, EXTENSION_PERMISSIONS } from "./vocabulary.ts";

/** A manifest is at most 32 KiB after JCS (EXTENSIONS §1.4). */
export const MAX_MANIFEST_BYTES = 32 * 1024;

const text = (min: number, max: number) => v.pipe(v.string(), v.minLength(min), v.maxLength(max), v.check((s) => !/[\u0000-\u001f\u007f]/.test(s), "no control characters"));
const https = v.pipe(v.string(), v.maxLength(2048), v.url(), v.check((s) => /^https:\/\//.test(s) || /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(s), "an https URL"));
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const extensionId = v.pipe(
  v.string(),
  v.maxLength(128),
  v.check((s) => {
    const labels = s.split(".");
    return labels.length >= 3 && labels.length <= 8 && labels.every((l) => LABEL.test(l));
  }, "reverse-domain, lowercase, 3 to 8 labels of [a-z0-9-]"),
);
const reason = text(10, 280);

/** The manifest, `manifestVersion: 1` (EXTENSIONS §1.4; the choices are in docs/decisions/extensions.md). */
export const Manifest = v.strictObject({
  manifestVersion: v.literal(1),
  id: extensionId,
  version: v.pipe(v.string(), v.maxLength(32), v.regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, "semver MAJOR.MINOR.PATCH[-pre]")),
  name: text(1, 40),
  summary: text(1, 140),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  publisher: v.strictObject({ name: text(1, 64), domain: v.pipe(v.string(), v.maxLength(253), v.regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, "a lowercase domain name")), url: v.optional(https), email: v.optional(v.pipe(v.string(), v.maxLength(254), v.email())) }),
  icons: v.optional(v.record(v.picklist(["128", "512"]), v.strictObject({ url: https, sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "64 lowercase hex")) }))),
  categories: v.optional(v.pipe(v.array(v.picklist(["relationships", "productivity", "calendar", "crm", "analytics", "communication", "developer"])), v.minLength(1), v.maxLength(3))),
  links: v.optional(v.strictObject({ homepage: v.optional(https), privacyPolicy: v.optional(https), terms: v.optional(https), support: v.optional(https) })),
  keys: v.pipe(
    v.array(
      v.strictObject({
        keyId: text(1, 64),
        algorithm: v.literal("Ed25519"),
        publicKeyMultibase: v.pipe(v.string(), v.maxLength(128), v.check((s) => decodeEd25519PublicKey(s) !== null, "an Ed25519 key, multibase base58btc (z6Mk…)")),
        status: v.picklist(["active", "retired"]),
      }),
    ),
    v.minLength(1),
    v.maxLength(4),
    v.check((keys) => keys.some((k) => k.status === "active"), "at least one active key"),
    v.check((keys) => new Set(keys.map((k) => k.keyId)).size === keys.length, "keyIds must be distinct"),
  ),
  permissions: v.pipe(
    v.array(v.strictObject({ name: v.picklist(EXTENSION_PERMISSIONS), required: v.boolean(), reason })),
    v.minLength(1),
    v.maxLength(16),
    v.check((ps) => new Set(ps.map((p) => p.name)).size === ps.length, "each permission once"),
  ),
  layers: v.optional(v.strictObject({ requested: v.pipe(v.array(v.picklist(DUNBAR_LAYERS)), v.minLength(1), v.maxLength(5)), reason })),
  maxAutonomyTier: v.optional(v.picklist(AUTONOMY_TIERS)),
  intents: v.optional(v.pipe(v.array(v.picklist(EXTENSION_INTENTS)), v.maxLength(15))),
  events: v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(/^([a-z_]+\.)?(\*|[a-z_]+)$/, "an event kind (noun.verb) or noun.*"))), v.maxLength(32))),
  endpoints: v.optional(v.strictObject({ setupUrl: v.optional(https), webhookUrl: v.optional(https) })),
  token: v.optional(v.strictObject({ ttlHours: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24)) })),
  engines: v.optional(v.strictObject({ kith: v.pipe(v.string(), v.maxLength(64)) })),
});
export type Manifest = v.InferOutput<typeof Manifest>;

/**
 * The manifest checked member by member (400 naming the first bad one, `manifest.keys[0].status: …`)
 * and against the rules that follow from it: publisher domain ↔ id, layers for contact
 * permissions, intents and a tier for `intents:send`, a privacy policy for data permissions.
 */
export function parseManifest(value: unknown): Manifest {
  const jcs = canonicalize(value);
  if (!jcs.ok) throw bad(`manifest: not canonicalizable JSON (${jcs.reason})`);
  if (utf8(jcs.text).length > MAX_MANIFEST_BYTES) throw bad(`manifest: larger than ${MAX_MANIFEST_BYTES} bytes after JCS`);
  const parsed = v.safeParse(Manifest, value);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = (issue.path ?? []).map((p) => (p.type === "array" ? `[${String(p.key)}]` : `.${String(p.key)}`)).join("");
    throw bad(`manifest${path}: ${issue.message.length > 200 ? `${issue.message.slice(0, 200)}…` : issue.message}`);
  }
  const m = parsed.output;
  const reversed = m.publisher.domain.split(".").reverse().join(".");
  if (m.id !== reversed && !m.id.startsWith(`${reversed}.`)) throw bad(`manifest.publisher.domain: ${m.publisher.domain} reversed (${reversed}) must prefix the id ${m.id}`);
  const names = m.permissions.map((p) => p.name);
  if (names.some((n) => CONTACT_PERMISSIONS.includes(n)) && !m.layers) throw bad("manifest.layers: required when a permission reveals contacts");
  if (names.includes("intents:send") && (!m.intents?.length || !m.maxAutonomyTier)) throw bad("manifest.intents: intents:send needs intents[] and maxAutonomyTier");
  if (names.some((n) => n !== "agent.chat") && !m.links?.privacyPolicy) throw bad("manifest.links.privacyPolicy: required when a data permission is requested");
  return m;
}

/** `sha256:<hex>` of the manifest's JCS bytes: binds consent, install and review to exact bytes. */
export function manifestHashOf(manifest: unknown): string {
  const jcs = canonicalize(manifest);
  if (!jcs.ok) throw bad(`manifest: not canonicalizable JSON (${jcs.reason})`);
  return `sha256:${toHex(sha256(utf8(jcs.text)))}`;
}

function bad(message: string): DomainError {
  return new DomainError("invalid_input", message);
}
