// The delegation token (SPEC "Delegation token payload"): `<base64url(JCS(payload))>.<signature>`.
// The SDK reads the payload only to know when to renew; the node is the one that verifies it.
// Renewal is POST /ext/v1/token, signed with the extension's key and no Authorization
// (docs/extensions.md "Renewing the token"); it rotates the node's stored hash, so the previous
// token stops working at once — hence single-flight: concurrent callers share one renewal.
import { verifyEd25519 } from "./crypto.ts";
import { decodeEd25519Multibase, fromBase64url, fromUtf8, utf8 } from "./encoding.ts";

/** The token signature's domain: Ed25519 over this + JCS(payload), by the agent's active key. */
export const TOKEN_DOMAIN = "kith/delegation-token/1\n";

export type DelegationPayload = {
  installationId: string;
  extensionId: string;
  ownerTulpaId: string;
  permissions: string[];
  layers: string[];
  maxAutonomyTier: string;
  issuedAt: string;
  expiresAt: string;
  publicKeyMultibase?: string;
  tokenVersion?: number;
  [member: string]: unknown;
};

/** The payload a token carries, or null when it is not a well-formed token. Not a verification. */
export function decodeToken(token: string): DelegationPayload | null {
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  const bytes = m ? fromBase64url(m[1] as string) : null;
  const text = bytes ? fromUtf8(bytes) : null;
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const p = value as DelegationPayload;
    if (typeof p.expiresAt !== "string" || Number.isNaN(Date.parse(p.expiresAt))) return null;
    return p;
  } catch {
    return null;
  }
}

/**
 * Checks a token's signature under the agent's key(s) (`publicKeyMultibase` of /ext/v1/identity
 * or the Agent Card) and returns its payload, or null. The node checks every token anyway; this is
 * for an extension that wants to know a token it was handed really comes from that agent.
 */
export async function verifyToken(token: string, agentPublicKeys: string[]): Promise<DelegationPayload | null> {
  const payload = decodeToken(token);
  const [body, sig] = token.split(".");
  const signature = sig ? fromBase64url(sig) : null;
  const text = body ? fromUtf8(fromBase64url(body) ?? new Uint8Array([0xff])) : null;
  if (payload === null || signature === null || text === null) return null;
  for (const k of agentPublicKeys) {
    const key = decodeEd25519Multibase(k);
    if (key && (await verifyEd25519(key, utf8(TOKEN_DOMAIN + text), signature))) return payload;
  }
  return null;
}

/** Where tokens live between runs, or between processes of one extension. */
export type TokenStore = {
  load(): Promise<string | null> | string | null;
  save(token: string): Promise<void> | void;
};

export type TokenManagerOptions = {
  /** Fetches a fresh token from the node (POST /ext/v1/token). */
  renew: () => Promise<string>;
  initial?: string | null;
  store?: TokenStore | null;
  now: () => number;
};

/** Renew when less than 10% of the token's lifetime, or less than 5 minutes, remains. */
export function needsRenewal(payload: DelegationPayload | null, now: number): boolean {
  if (payload === null) return true;
  const expires = Date.parse(payload.expiresAt);
  const issued = Date.parse(payload.issuedAt);
  const ttl = Number.isNaN(issued) ? 0 : expires - issued;
  return expires - now < Math.max(ttl * 0.1, 5 * 60_000);
}

export class TokenManager {
  #token: string | null;
  #loaded: boolean;
  #inflight: Promise<string> | null = null;
  renewals = 0;

  constructor(private readonly options: TokenManagerOptions) {
    this.#token = options.initial ?? null;
    this.#loaded = this.#token !== null || !options.store;
  }

  get current(): string | null {
    return this.#token;
  }

  /** A token good for the next request, renewing first when it is missing or about to expire. */
  async get(): Promise<string> {
    if (!this.#loaded) {
      this.#loaded = true;
      const stored = await this.options.store?.load();
      if (stored) this.#token = stored;
    }
    const token = this.#token;
    if (token !== null && !needsRenewal(decodeToken(token), this.options.now())) return token;
    return this.renew();
  }

  /**
   * The node refused `failed` (token_expired / token_revoked). If another caller (or another
   * process, through the store) already replaced it, use that one; otherwise renew.
   */
  async replace(failed: string): Promise<string> {
    if (this.#token !== null && this.#token !== failed) return this.#token;
    const stored = await this.options.store?.load();
    if (stored && stored !== failed && !needsRenewal(decodeToken(stored), this.options.now())) {
      this.#token = stored;
      return stored;
    }
    return this.renew();
  }

  /** Single-flight: every caller during a renewal awaits the same request. */
  renew(): Promise<string> {
    if (this.#inflight) return this.#inflight;
    this.#inflight = (async () => {
      try {
        const token = await this.options.renew();
        this.renewals++;
        this.#token = token;
        await this.options.store?.save(token);
        return token;
      } finally {
        this.#inflight = null;
      }
    })();
    return this.#inflight;
  }
}
