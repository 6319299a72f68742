import { errors as joseErrors, jwtVerify, SignJWT } from "jose";

/**
 * Owner access tokens: HS256 JWTs keyed by a key derived from the node secret (never stored in
 * the database). 15 minutes; `iss` is the node's public URL, `aud` names the owner API of this
 * node, `sub` the owner, `sid` the session (refresh-token family), `jti` a fresh id. They are
 * stateless: logout ends the refresh tokens, and an access token already out lives out its 15
 * minutes.
 */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const OWNER_SUBJECT = "owner";

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
  /** The claims of a valid token, or null for anything else (malformed, forged, expired, wrong iss/aud/typ/alg). */
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
        const { payload } = await jwtVerify(token, options.key, {
          algorithms: ["HS256"],
          typ: "at+jwt",
          issuer,
          audience,
          subject: OWNER_SUBJECT,
          requiredClaims: ["exp", "iat", "jti", "sid"],
          currentDate: new Date(options.now()),
          clockTolerance: 5,
        });
        if (typeof payload.sid !== "string" || !Array.isArray(payload.amr) || typeof payload.amr[0] !== "string") return null;
        return { subject: payload.sub!, sessionId: payload.sid, method: payload.amr[0], tokenId: payload.jti!, expiresAt: payload.exp! * 1000 };
      } catch (e) {
        if (e instanceof joseErrors.JOSEError || e instanceof TypeError) return null;
        throw e;
      }
    },
  };
}
