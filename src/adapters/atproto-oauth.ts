import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from "jose";
import { OutboundError, SignInRejected } from "../security/outbound-errors.ts";
import { isLoopback } from "./loopback.ts";
import { getJson, outboundRequest, type FetchLike, type OutboundResponse } from "./outbound.ts";
import { randomToken, s256Challenge } from "../security/pkce.ts";

/**
 * Sign-in with the owner's AT Protocol identity, written to the AT Protocol OAuth profile
 * (docs/decisions/atproto-sign-in.md says why not @atproto/oauth-client-node): resolve the
 * configured handle or DID to its DID document, PDS, protected-resource metadata and
 * authorization server; push the request (PAR) with PKCE S256 and a DPoP proof; exchange the code
 * with a DPoP proof of the same key; accept only when the token's `sub` is the owner's DID.
 * Kith is a public client (token_endpoint_auth_method "none") identified by its client metadata
 * document at `<public URL>/auth/atproto/client-metadata.json`. It keeps no AT Protocol tokens.
 */
export interface AtprotoOptions {
  /** The owner: a DID (did:plc:…, did:web:…) or a handle. */
  owner: string;
  clientId: string;
  plcUrl: string;
  /** An XRPC service answering com.atproto.identity.resolveHandle, or null for DNS TXT + HTTPS well-known. */
  handleResolver: string | null;
  now: () => number;
  fetch?: FetchLike;
  resolveTxt?: (name: string) => Promise<string[][]>;
}

/** What the callback needs from the authorize step; kept in the state row. */
export interface AtprotoPending {
  issuer: string;
  did: string;
  dpopKey: JWK;
}

export interface AtprotoClient {
  start(input: { redirectUri: string; state: string; codeVerifier: string }): Promise<{ url: string; pending: AtprotoPending }>;
  /** `iss` is required: the profile makes every authorization server send it (RFC 9207). */
  finish(input: { code: string; redirectUri: string; codeVerifier: string; iss: string; pending: AtprotoPending }): Promise<{ did: string }>;
}

interface AuthServer {
  issuer: string;
  parEndpoint: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
}

export const ATPROTO_SCOPE = "atproto";
/** How long the owner's resolved DID, PDS and authorization server are reused between sign-ins. */
export const RESOLUTION_TTL_MS = 5 * 60 * 1000;
const DID_PATTERN = /^did:(plc:[a-z2-7]{24}|web:[A-Za-z0-9.%-]+)$/;
export const HANDLE_PATTERN = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

export function isAtprotoOwner(value: string): boolean {
  return DID_PATTERN.test(value) || (value.length <= 253 && HANDLE_PATTERN.test(value));
}

export function createAtprotoClient(options: AtprotoOptions): AtprotoClient {
  const fetchOpt = { fetch: options.fetch };

  const resolveOwner = async (): Promise<{ did: string; pds: string }> => {
    const owner = options.owner.toLowerCase().startsWith("did:") ? options.owner : options.owner.toLowerCase();
    const did = owner.startsWith("did:") ? owner : await resolveHandle(owner);
    if (!DID_PATTERN.test(did)) throw new OutboundError(`the owner resolves to ${JSON.stringify(did)}, not a did:plc or did:web`);
    const doc = await getJson(didDocumentUrl(did, options.plcUrl), fetchOpt);
    if (doc.id !== did) throw new OutboundError(`the DID document of ${did} names ${String(doc.id)}`);
    // A handle counts only when the DID document claims it back (bidirectional verification).
    if (!owner.startsWith("did:")) {
      const aka = Array.isArray(doc.alsoKnownAs) ? doc.alsoKnownAs : [];
      if (!aka.some((a) => typeof a === "string" && a.toLowerCase() === `at://${owner}`)) throw new OutboundError(`${did} does not claim the handle ${owner}`);
    }
    const services = Array.isArray(doc.service) ? (doc.service as Array<Record<string, unknown>>) : [];
    const pds = services.find((s) => (s.id === "#atproto_pds" || s.id === `${did}#atproto_pds`) && s.type === "AtprotoPersonalDataServer");
    if (!pds || typeof pds.serviceEndpoint !== "string") throw new OutboundError(`${did} has no PDS`);
    return { did, pds: checkedUrl(pds.serviceEndpoint, "PDS endpoint") };
  };

  const resolveHandle = async (handle: string): Promise<string> => {
    if (options.handleResolver) {
      const res = await getJson(`${options.handleResolver.replace(/\/$/, "")}/xrpc/com.atproto.identity.resolveHandle?handle=${encodeURIComponent(handle)}`, fetchOpt);
      if (typeof res.did !== "string") throw new OutboundError(`cannot resolve the handle ${handle}`);
      return res.did;
    }
    // AT Protocol handle resolution: DNS TXT _atproto.<handle> "did=…", else HTTPS /.well-known/atproto-did.
    try {
      const records = await (options.resolveTxt ?? (await import("node:dns/promises")).resolveTxt)(`_atproto.${handle}`);
      const dids = records.map((r) => r.join("")).filter((t) => t.startsWith("did=")).map((t) => t.slice(4));
      if (dids.length === 1) return dids[0]!;
    } catch {
      // no TXT record: try HTTPS
    }
    const res = await outboundRequest(`https://${handle}/.well-known/atproto-did`, { method: "GET", headers: { accept: "text/plain" } }, fetchOpt);
    const did = res.text.trim();
    if (res.status === 200 && did.startsWith("did:")) return did;
    throw new OutboundError(`cannot resolve the handle ${handle} (HTTPS well-known answered ${res.status})`);
  };

  const authServerOf = async (pds: string): Promise<AuthServer> => {
    const resource = await getJson(`${pds.replace(/\/$/, "")}/.well-known/oauth-protected-resource`, fetchOpt);
    const servers = Array.isArray(resource.authorization_servers) ? resource.authorization_servers : [];
    if (typeof servers[0] !== "string") throw new OutboundError(`the PDS ${pds} names no authorization server`);
    return authServerMetadata(checkedUrl(servers[0], "authorization server"));
  };

  const authServerMetadata = async (issuer: string): Promise<AuthServer> => {
    const meta = await getJson(`${issuer.replace(/\/$/, "")}/.well-known/oauth-authorization-server`, fetchOpt);
    // RFC 8414 §3.3: the metadata's issuer must be the one we asked.
    if (meta.issuer !== issuer) throw new OutboundError(`authorization server metadata names issuer ${String(meta.issuer)}, expected ${issuer}`);
    const list = (v: unknown) => (Array.isArray(v) ? v : []);
    if (!list(meta.scopes_supported).includes(ATPROTO_SCOPE)) throw new OutboundError(`${issuer} does not support the atproto scope`);
    if (!list(meta.dpop_signing_alg_values_supported).includes("ES256")) throw new OutboundError(`${issuer} does not take ES256 DPoP proofs`);
    if (!list(meta.code_challenge_methods_supported).includes("S256")) throw new OutboundError(`${issuer} does not take PKCE S256`);
    return {
      issuer,
      parEndpoint: checkedUrl(meta.pushed_authorization_request_endpoint, "PAR endpoint"),
      authorizationEndpoint: checkedUrl(meta.authorization_endpoint, "authorization endpoint"),
      tokenEndpoint: checkedUrl(meta.token_endpoint, "token endpoint"),
    };
  };

  /** POST a form with a DPoP proof; once, retry with the server's DPoP-Nonce (RFC 9449 §8). */
  const dpopPost = async (url: string, form: URLSearchParams, key: JWK): Promise<OutboundResponse> => {
    const privateKey = await importJWK(key, "ES256");
    const { d: _d, ...publicJwk } = key;
    let nonce: string | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const proof = await new SignJWT({ htm: "POST", htu: htuOf(url), ...(nonce ? { nonce } : {}) })
        .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk: publicJwk })
        .setJti(randomToken(16))
        .setIssuedAt(Math.floor(options.now() / 1000))
        .sign(privateKey);
      const res = await outboundRequest(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", dpop: proof }, body: form.toString() }, fetchOpt);
      const serverNonce = res.headers.get("dpop-nonce");
      if ((res.status === 400 || res.status === 401) && res.json?.error === "use_dpop_nonce" && serverNonce && nonce === null) {
        nonce = serverNonce;
        continue;
      }
      return res;
    }
    throw new OutboundError(`${url}: DPoP nonce not accepted`);
  };

  // Anyone can call authorize: without this, each call would make the node fetch the owner's DID
  // document (from plc.directory, shared by everyone), PDS and server metadata again. Only the
  // pushed request itself is per sign-in. A failed resolution is not kept.
  let resolved: { did: string; server: AuthServer; at: number } | null = null;
  const resolveCached = async (): Promise<{ did: string; server: AuthServer }> => {
    if (resolved && options.now() - resolved.at < RESOLUTION_TTL_MS) return resolved;
    const { did, pds } = await resolveOwner();
    const server = await authServerOf(pds);
    resolved = { did, server, at: options.now() };
    return resolved;
  };

  return {
    async start({ redirectUri, state, codeVerifier }) {
      const { did, server } = await resolveCached();
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      const dpopKey = await exportJWK(privateKey);
      const form = new URLSearchParams({
        client_id: options.clientId,
        response_type: "code",
        redirect_uri: redirectUri,
        state,
        scope: ATPROTO_SCOPE,
        code_challenge: s256Challenge(codeVerifier),
        code_challenge_method: "S256",
        login_hint: options.owner,
      });
      const res = await dpopPost(server.parEndpoint, form, dpopKey);
      if ((res.status !== 201 && res.status !== 200) || typeof res.json?.request_uri !== "string") {
        throw new OutboundError(`pushed authorization request refused (${res.status} ${String(res.json?.error ?? "")})`, res.status);
      }
      const url = new URL(server.authorizationEndpoint);
      url.searchParams.set("client_id", options.clientId);
      url.searchParams.set("request_uri", res.json.request_uri);
      return { url: url.toString(), pending: { issuer: server.issuer, did, dpopKey } };
    },

    async finish({ code, redirectUri, codeVerifier, iss, pending }) {
      // RFC 9207 §2.4: the authorization response names its issuer; it must be the one we started
      // with. The AT Protocol profile requires servers to send it, so a response without it is refused.
      if (iss !== pending.issuer) throw new SignInRejected("the authorization response came from another issuer, or named none");
      const cached = resolved?.server.issuer === pending.issuer ? resolved.server : null;
      const server = cached ?? (await authServerMetadata(pending.issuer));
      const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier, client_id: options.clientId });
      const res = await dpopPost(server.tokenEndpoint, form, pending.dpopKey);
      if (res.status === 400 || res.status === 401) throw new SignInRejected(`token endpoint refused the code: ${String(res.json?.error ?? res.status)}`);
      if (res.status !== 200 || !res.json) throw new OutboundError(`token endpoint answered ${res.status}`, res.status);
      const body = res.json;
      if (typeof body.token_type !== "string" || body.token_type.toLowerCase() !== "dpop") throw new SignInRejected("the token is not DPoP-bound");
      if (typeof body.scope !== "string" || !body.scope.split(" ").includes(ATPROTO_SCOPE)) throw new SignInRejected("the token lacks the atproto scope");
      // The profile's identity check: the token's subject is the DID that was resolved for the owner.
      if (body.sub !== pending.did) throw new SignInRejected("the signed-in account is not the owner's");
      return { did: pending.did };
    },
  };
}

function didDocumentUrl(did: string, plcUrl: string): string {
  if (did.startsWith("did:plc:")) return `${plcUrl.replace(/\/$/, "")}/${did}`;
  const host = decodeURIComponent(did.slice("did:web:".length));
  return `https://${host}/.well-known/did.json`;
}

function checkedUrl(value: unknown, name: string): string {
  if (typeof value !== "string") throw new OutboundError(`no ${name}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OutboundError(`${name} is not a URL`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) throw new OutboundError(`${name} must be https`);
  return value;
}

/** RFC 9449 §4.2: htu is the URL without query and fragment. */
function htuOf(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}
