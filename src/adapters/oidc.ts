import { CodeChallengeMethod, OAuth2Client } from "arctic";
import { createRemoteJWKSet, customFetch, errors as joseErrors, importPKCS8, jwtVerify, SignJWT, type JWTVerifyGetKey } from "jose";
import { OutboundError, SignInRejected } from "../security/outbound-errors.ts";
import { isLoopback } from "./loopback.ts";
import { getJson, outboundRequest, type FetchLike } from "./outbound.ts";

/**
 * Sign-in with an OpenID Connect provider (Google, Apple) for the node's one owner. Endpoints come
 * from the provider's discovery document (`<issuer>/.well-known/openid-configuration`), so the
 * production path and the tests (a fake provider on loopback) differ only by the issuer URL.
 * arctic builds the authorization URL (always with the node's own PKCE S256); the code
 * exchange goes through the bounded outbound client (timeout, no redirects) because arctic's
 * uses the global fetch with neither; the ID token is verified with jose against the provider's
 * JWKS: signature, iss, aud, exp, nonce.
 */
export interface OidcProviderOptions {
  issuer: string;
  clientId: string;
  /** The client secret (Google) or a function making one (Apple: a short-lived ES256 JWT). */
  clientSecret: () => Promise<string>;
  scopes: string[];
  /** Extra authorization parameters (Apple: response_mode=form_post, required with the email scope). */
  extraParams?: Record<string, string>;
  /** Other spellings of the issuer the provider puts in `iss` (Google: "accounts.google.com"). */
  issuerAliases?: string[];
  now: () => number;
  fetch?: FetchLike;
}

export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export interface OidcClient {
  /** The provider's authorization URL, with the node's PKCE S256 challenge and the nonce. */
  authorizationUrl(input: { redirectUri: string; state: string; codeVerifier: string; nonce: string }): Promise<string>;
  /**
   * Checks the authorization response's `iss` (RFC 9207), exchanges the code and verifies the ID
   * token. Throws SignInRejected or OutboundError.
   */
  finish(input: { code: string; redirectUri: string; codeVerifier: string; nonce: string; iss: string | null }): Promise<VerifiedIdentity>;
}

/** The provider refused the code, or its answer did not verify: the sign-in is not accepted. */

interface Discovery {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwks: JWTVerifyGetKey;
  /** RFC 9207 §3: the provider puts `iss` in every authorization response. */
  issParameter: boolean;
  basicAuth: boolean;
  algorithms: string[];
  fetchedAt: number;
}

const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const ACCEPTED_ALGS = ["RS256", "ES256", "PS256", "EdDSA"];

export function createOidcClient(options: OidcProviderOptions): OidcClient {
  let cached: Discovery | null = null;
  const discover = async (): Promise<Discovery> => {
    if (cached && options.now() - cached.fetchedAt < DISCOVERY_TTL_MS) return cached;
    const doc = await getJson(`${options.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, { fetch: options.fetch });
    // OpenID Connect Discovery §4.3: the document's issuer must be exactly the configured one.
    if (doc.issuer !== options.issuer) throw new OutboundError(`discovery document names issuer ${String(doc.issuer)}, expected ${options.issuer}`);
    const authorizationEndpoint = httpsUrl(doc.authorization_endpoint, "authorization_endpoint");
    const tokenEndpoint = httpsUrl(doc.token_endpoint, "token_endpoint");
    const jwksUri = httpsUrl(doc.jwks_uri, "jwks_uri");
    const methods = stringList(doc.token_endpoint_auth_methods_supported);
    const algorithms = stringList(doc.id_token_signing_alg_values_supported).filter((a) => ACCEPTED_ALGS.includes(a));
    cached = {
      authorizationEndpoint,
      tokenEndpoint,
      jwks: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 10_000, ...(options.fetch ? { [customFetch]: options.fetch } : {}) }),
      issParameter: doc.authorization_response_iss_parameter_supported === true,
      // RFC 8414 §2: client_secret_basic is the default when the list is absent.
      basicAuth: methods.length === 0 || methods.includes("client_secret_basic"),
      algorithms: algorithms.length > 0 ? algorithms : ["RS256"],
      fetchedAt: options.now(),
    };
    return cached;
  };

  return {
    async authorizationUrl({ redirectUri, state, codeVerifier, nonce }) {
      const d = await discover();
      const client = new OAuth2Client(options.clientId, null, redirectUri);
      // PKCE towards every provider, advertised or not (Apple's discovery document does not list it
      // but Apple enforces it once sent): RFC 6749 §3.1 and §3.2 make a server ignore parameters it
      // does not know, so this costs nothing where unsupported.
      const url = client.createAuthorizationURLWithPKCE(d.authorizationEndpoint, state, CodeChallengeMethod.S256, codeVerifier, options.scopes);
      url.searchParams.set("nonce", nonce);
      for (const [k, v] of Object.entries(options.extraParams ?? {})) url.searchParams.set(k, v);
      return url.toString();
    },

    async finish({ code, redirectUri, codeVerifier, nonce, iss }) {
      const d = await discover();
      // RFC 9207 §2.4: an `iss` that is there must name this provider; a provider that promises
      // one in its metadata must send it (a mix-up attack would strip it).
      if (iss !== null && ![options.issuer, ...(options.issuerAliases ?? [])].includes(iss)) throw new SignInRejected("the authorization response came from another issuer");
      if (iss === null && d.issParameter) throw new SignInRejected("the authorization response carries no iss, which this provider always sends");
      const body = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier });
      const secret = await options.clientSecret();
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      if (d.basicAuth) {
        // RFC 6749 §2.3.1: both parts form-urlencoded before base64.
        headers.authorization = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(secret)}`).toString("base64")}`;
      } else {
        body.set("client_id", options.clientId);
        body.set("client_secret", secret);
      }
      const res = await outboundRequest(d.tokenEndpoint, { method: "POST", headers, body: body.toString() }, { fetch: options.fetch });
      if (res.status === 400 || res.status === 401) throw new SignInRejected(`token endpoint refused the code: ${String(res.json?.error ?? res.status)}`);
      if (res.status !== 200 || !res.json) throw new OutboundError(`token endpoint answered ${res.status}`, res.status);
      const idToken = res.json.id_token;
      if (typeof idToken !== "string") throw new SignInRejected("the token response has no id_token");
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(idToken, d.jwks, {
          issuer: [options.issuer, ...(options.issuerAliases ?? [])],
          audience: options.clientId,
          algorithms: d.algorithms,
          requiredClaims: ["sub", "exp", "iat"],
          currentDate: new Date(options.now()),
          clockTolerance: 60,
        }));
      } catch (e) {
        if (e instanceof joseErrors.JWKSTimeout || (e instanceof joseErrors.JOSEError && e.code === "ERR_JWKS_INVALID")) throw new OutboundError(`JWKS: ${e.message}`);
        if (e instanceof joseErrors.JOSEError) throw new SignInRejected(`id_token did not verify: ${e.code}`);
        throw e;
      }
      if (payload.nonce !== nonce) throw new SignInRejected("id_token nonce does not match this sign-in");
      const email = typeof payload.email === "string" ? payload.email.toLowerCase() : null;
      // Apple sends email_verified as the string "true".
      const emailVerified = payload.email_verified === true || payload.email_verified === "true";
      return { subject: String(payload.sub), email, emailVerified };
    },
  };
}

/**
 * Apple's client secret: an ES256 JWT signed with the team's key (the .p8 file), iss = team id,
 * sub = the Services ID, aud = Apple's issuer. Made fresh for each exchange, valid 5 minutes.
 */
export function appleClientSecret(options: { teamId: string; keyId: string; clientId: string; privateKeyPem: string; audience: string; now: () => number }): () => Promise<string> {
  let key: CryptoKey | null = null;
  return async () => {
    key ??= await importPKCS8(options.privateKeyPem, "ES256");
    const iat = Math.floor(options.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: options.keyId })
      .setIssuer(options.teamId)
      .setSubject(options.clientId)
      .setAudience(options.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .sign(key);
  };
}

function httpsUrl(value: unknown, name: string): string {
  if (typeof value !== "string") throw new OutboundError(`discovery document has no ${name}`);
  const url = new URL(value);
  if (url.protocol !== "https:" && !isLoopback(url.hostname)) throw new OutboundError(`${name} must be https`);
  return value;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}
