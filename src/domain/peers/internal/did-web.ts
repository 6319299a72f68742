import { decodeEd25519PublicKey } from "../../../ink/index.ts";
import type { PeerHttp } from "../../../adapters/peer-http.ts";
import { cardUrlFor } from "../card-url-for.ts";
import { didWebBase } from "./did-web-base.ts";

const SERVICE_TYPES = new Set(["INKAgentEndpoint", "TulpaAgentEndpoint"]);

/** The parts of a DID document Kith reads (W3C DID Core): its id, services and verification methods. */
export type DidDocument = { id: string; service?: unknown; verificationMethod?: unknown; [k: string]: unknown };

/**
 * The DID document URL of a did:web (W3C did:web method): `did:web:host` → `https://host/.well-known/did.json`,
 * `did:web:host:a:b` → `https://host/a/b/did.json`; the port is percent-encoded (`host%3A8443`).
 */
export function didWebDocumentUrl(did: string): string | null {
  const m = /^did:web:([A-Za-z0-9.-]+(?:%3A\d{1,5})?)((?::[A-Za-z0-9._~-]+)*)$/.exec(did);
  if (!m) return null;
  const host = m[1]!.replace("%3A", ":").toLowerCase();
  const path = m[2] ? m[2].slice(1).split(":").join("/") + "/did.json" : ".well-known/did.json";
  return `https://${host}/${path}`;
}

/**
 * The DID document of a did:web, fetched through the SSRF gate (no redirects, 64 KiB, 5 s); null
 * unless it answers 200 with a JSON object whose `id` is this very DID.
 */
export async function fetchDidWebDocument(http: PeerHttp, did: string): Promise<DidDocument | null> {
  const docUrl = didWebDocumentUrl(did);
  if (!docUrl) return null;
  const res = await http.request(docUrl, { headers: { accept: "application/did+json, application/json" }, timeoutMs: 5_000, maxBytes: 65_536 });
  if (!res.ok || res.status !== 200) return null;
  try {
    const doc = JSON.parse(new TextDecoder().decode(res.body)) as unknown;
    return doc !== null && typeof doc === "object" && !Array.isArray(doc) && (doc as DidDocument).id === did ? (doc as DidDocument) : null;
  } catch {
    return null;
  }
}

/**
 * Where a did:web agent's card lives: the `serviceEndpoint` of an INKAgentEndpoint service in its
 * DID document (PRODUCT-SURFACE §5; legacy TulpaAgentEndpoint accepted) when the document is
 * fetched through the SSRF gate and names this very DID; otherwise INK §12's normative path on the
 * did:web host. Null when the DID is not a resolvable did:web.
 */
export async function didWebCardUrl(http: PeerHttp, did: string): Promise<string | null> {
  if (!didWebDocumentUrl(did)) return null;
  const doc = await fetchDidWebDocument(http, did);
  if (doc && Array.isArray(doc.service)) {
    for (const s of doc.service as Array<{ type?: unknown; serviceEndpoint?: unknown } | null>) {
      const types = Array.isArray(s?.type) ? s.type : [s?.type];
      if (types.some((t) => typeof t === "string" && SERVICE_TYPES.has(t)) && typeof s?.serviceEndpoint === "string" && s.serviceEndpoint.startsWith("https://")) {
        return s.serviceEndpoint;
      }
    }
  }
  const base = didWebBase(did);
  return base ? cardUrlFor(base, did) : null;
}

/**
 * The Ed25519 keys of a DID document's verification methods (INK §13 did:web anchoring): entries
 * of `verificationMethod`, and methods embedded in the relationship arrays (`authentication`,
 * `assertionMethod`, …), carrying `publicKeyMultibase` (z + 0xed01 ‖ key) or `publicKeyJwk`
 * `{kty: "OKP", crv: "Ed25519", x}`. Other key types are skipped.
 */
export function didDocumentEd25519Keys(doc: DidDocument): Uint8Array[] {
  const methods: unknown[] = [];
  for (const [name, value] of Object.entries(doc)) {
    if (name === "service" || !Array.isArray(value)) continue;
    if (name === "verificationMethod" || RELATIONSHIPS.has(name)) methods.push(...value);
  }
  const keys: Uint8Array[] = [];
  for (const m of methods) {
    if (m === null || typeof m !== "object") continue; // a relationship entry may be a reference (a string)
    const key = methodKey(m as Record<string, unknown>);
    if (key && !keys.some((k) => k.every((b, i) => b === key[i]))) keys.push(key);
  }
  return keys;
}

/** The Ed25519 verification keys of a did:web, or null when its DID document cannot be had. */
export async function didWebVerificationKeys(http: PeerHttp, did: string): Promise<Uint8Array[] | null> {
  const doc = await fetchDidWebDocument(http, did);
  return doc ? didDocumentEd25519Keys(doc) : null;
}

const RELATIONSHIPS = new Set(["authentication", "assertionMethod", "capabilityInvocation", "capabilityDelegation"]);

function methodKey(m: Record<string, unknown>): Uint8Array | null {
  if (typeof m.publicKeyMultibase === "string") return decodeEd25519PublicKey(m.publicKeyMultibase);
  const jwk = m.publicKeyJwk as Record<string, unknown> | undefined;
  if (jwk && typeof jwk === "object" && jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string" && /^[A-Za-z0-9_-]{43}$/.test(jwk.x)) {
    const bytes = new Uint8Array(Buffer.from(jwk.x, "base64url"));
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}
