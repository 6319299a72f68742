import type { PeerHttp } from "../../security/peer-http.ts";
import { cardUrlFor, didWebBase } from "./card-url.ts";

const SERVICE_TYPES = new Set(["INKAgentEndpoint", "TulpaAgentEndpoint"]);

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
 * Where a did:web agent's card lives: the `serviceEndpoint` of an INKAgentEndpoint service in its
 * DID document (PRODUCT-SURFACE §5; legacy TulpaAgentEndpoint accepted) when the document is
 * fetched through the SSRF gate and names this very DID; otherwise INK §12's normative path on the
 * did:web host. Null when the DID is not a resolvable did:web.
 */
export async function didWebCardUrl(http: PeerHttp, did: string): Promise<string | null> {
  const docUrl = didWebDocumentUrl(did);
  if (!docUrl) return null;
  const res = await http.request(docUrl, { headers: { accept: "application/did+json, application/json" }, timeoutMs: 5_000, maxBytes: 65_536 });
  if (res.ok && res.status === 200) {
    try {
      const doc = JSON.parse(new TextDecoder().decode(res.body)) as { id?: unknown; service?: unknown };
      if (doc.id === did && Array.isArray(doc.service)) {
        for (const s of doc.service as Array<{ type?: unknown; serviceEndpoint?: unknown }>) {
          const types = Array.isArray(s?.type) ? s.type : [s?.type];
          if (types.some((t) => typeof t === "string" && SERVICE_TYPES.has(t)) && typeof s.serviceEndpoint === "string" && s.serviceEndpoint.startsWith("https://")) {
            return s.serviceEndpoint;
          }
        }
      }
    } catch {
      // not a DID document: use the normative path below
    }
  }
  const base = didWebBase(did);
  return base ? cardUrlFor(base, did) : null;
}
