import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload, type ProtectedHeaderParameters } from "jose";

/**
 * Owner access tokens: HS256 JWTs keyed by a key derived from the node secret (never stored in
 * the database). 15 minutes; `iss` is the node's public URL, `aud` names the owner API of this
 * node, `sub` the owner, `sid` the session (refresh-token family), `jti` a fresh id. They are
 * stateless: logout ends the refresh tokens, and an access token already out lives out its 15
 * minutes.
 */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const OWNER_SUBJECT = "owner";
/** Clock skew allowed on `iat` and `exp` (seconds). */
export const TOKEN_SKEW_SECONDS = 5;

export interface OwnerClaims {
  subject: string;
  sessionId: string;
  method: string;
  tokenId: string;
  expiresAt: number;
}

export interface OwnerTokens {
  issuer: string;
  audience: string;
  sign(claims: { sessionId: string; method: string; tokenId: string }): Promise<string>;
  /**
   * The claims of a token this node issued and that is live now, or null for anything else:
   * malformed, forged, expired, wrong iss/aud/sub/typ/alg, or a shape `sign` never produces
   * (issued in the future, a lifetime over 15 minutes, missing or extra claims or header members).
   */
  verify(token: string): Promise<OwnerClaims | null>;
}

export function ownerAudience(publicUrl: string): string {
  return `kith-owner:${publicUrl}`;
}

export function createOwnerTokens(options: { key: Uint8Array; publicUrl: string; now: () => number }): OwnerTokens {
  const issuer = options.publicUrl;
  const audience = ownerAudience(options.publicUrl);
  return {
    issuer,
    audience,
    async sign({ sessionId, method, tokenId }) {
      const iat = Math.floor(options.now() / 1000);
      return new SignJWT({ sid: sessionId, amr: [method] })
        .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(OWNER_SUBJECT)
        .setJti(tokenId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
        .sign(options.key);
    },
    async verify(token) {
      if (token.length > 4096) return null;
      try {
        const { payload, protectedHeader } = await jwtVerify(token, options.key, {
          algorithms: ["HS256"],
          typ: "at+jwt",
          issuer,
          audience,
          subject: OWNER_SUBJECT,
          requiredClaims: ["exp", "iat", "jti", "sid"],
          currentDate: new Date(options.now()),
          clockTolerance: TOKEN_SKEW_SECONDS,
        });
        if (!issuedHere(protectedHeader, payload, Math.floor(options.now() / 1000))) return null;
        return { subject: OWNER_SUBJECT, sessionId: payload.sid as string, method: (payload.amr as string[])[0]!, tokenId: payload.jti!, expiresAt: payload.exp! * 1000 };
      } catch (e) {
        if (e instanceof joseErrors.JOSEError || e instanceof TypeError) return null;
        throw e;
      }
    },
  };
}

const HEADER_MEMBERS = ["alg", "typ"];
const CLAIMS = ["amr", "aud", "exp", "iat", "iss", "jti", "sid", "sub"];

/**
 * The signature alone proves the node's key made the token; this checks that it has the exact
 * shape `sign` gives, so a token minted while the clock was wrong (or by anything else holding a
 * key derived from the node secret) is not honoured for longer than 15 minutes from now.
 */
function issuedHere(header: ProtectedHeaderParameters, payload: JWTPayload, nowSeconds: number): boolean {
  if (!sameMembers(header, HEADER_MEMBERS) || !sameMembers(payload, CLAIMS)) return false;
  const { iat, exp, aud, sid, jti, amr } = payload;
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) return false;
  // Not issued in the future (beyond the skew), and never a lifetime longer than the node gives.
  if (iat! > nowSeconds + TOKEN_SKEW_SECONDS) return false;
  if (exp! - iat! <= 0 || exp! - iat! > ACCESS_TOKEN_TTL_SECONDS) return false;
  if (typeof aud !== "string") return false;
  if (!shortId(sid) || !shortId(jti)) return false;
  return Array.isArray(amr) && amr.length === 1 && shortId(amr[0]);
}

function sameMembers(object: object, expected: string[]): boolean {
  const keys = Object.keys(object).sort();
  return keys.length === expected.length && keys.every((k, i) => k === expected[i]);
}

function shortId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 128;
}
