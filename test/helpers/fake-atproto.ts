import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from "jose";
import { createHash, randomBytes } from "node:crypto";

/**
 * A fake AT Protocol world on loopback (Bun.serve, port 0): PLC directory, handle resolver, PDS
 * (protected-resource metadata) and authorization server (RFC 8414 metadata, PAR, authorize,
 * token), enforcing what the AT Protocol OAuth profile requires of a client: client metadata
 * fetched from the client_id URL with the redirect URI registered in it, PAR, PKCE S256, DPoP
 * proofs (ES256, htm/htu/iat/jti, server nonce) with the token request bound to the PAR's key.
 */
export interface FakeAtproto {
  url: string;
  did: string;
  handle: string;
  /** The account that signs in at the next authorization. */
  signInAs: string;
  /** The DID document's alsoKnownAs (to test bidirectional handle checks). */
  alsoKnownAs: string[];
  pars: Array<{ form: URLSearchParams; jkt: string }>;
  tokenRequests: Array<{ form: URLSearchParams; jkt: string }>;
  nonceRetries: number;
  /** The path of every request the fake received, in order. */
  paths: string[];
  stop(): void;
}

export async function startFakeAtproto(options: { did: string; handle: string; now: () => number; clientMetadata: (clientId: string) => Promise<Record<string, unknown>> }): Promise<FakeAtproto> {
  const nonce = randomBytes(12).toString("base64url");
  const seenJti = new Set<string>();
  const requests = new Map<string, { form: URLSearchParams; jkt: string }>();
  const codes = new Map<string, { form: URLSearchParams; jkt: string; sub: string; used: boolean }>();
  let n = 0;
  const fake: FakeAtproto = {
    url: "",
    did: options.did,
    handle: options.handle,
    signInAs: options.did,
    alsoKnownAs: [`at://${options.handle}`],
    pars: [],
    tokenRequests: [],
    nonceRetries: 0,
    paths: [],
    stop: () => server.stop(true),
  };

  const oauthError = (error: string, status = 400, headers: Record<string, string> = {}) => Response.json({ error }, { status, headers });

  /** RFC 9449 §4.3 checks; returns the key thumbprint, or a Response to send back. */
  async function checkDpop(request: Request, url: URL): Promise<string | Response> {
    const proof = request.headers.get("dpop");
    if (!proof) return oauthError("invalid_dpop_proof");
    try {
      const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: "dpop+jwt", algorithms: ["ES256"], currentDate: new Date(options.now()) });
      if (payload.htm !== request.method || payload.htu !== `${url.origin}${url.pathname}`) return oauthError("invalid_dpop_proof");
      if (typeof payload.iat !== "number" || Math.abs(payload.iat * 1000 - options.now()) > 60_000) return oauthError("invalid_dpop_proof");
      if (typeof payload.jti !== "string" || seenJti.has(payload.jti)) return oauthError("invalid_dpop_proof");
      seenJti.add(payload.jti);
      if (payload.nonce !== nonce) {
        fake.nonceRetries++;
        return oauthError("use_dpop_nonce", 400, { "dpop-nonce": nonce });
      }
      return calculateJwkThumbprint(protectedHeader.jwk as JWK);
    } catch {
      return oauthError("invalid_dpop_proof");
    }
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const base = fake.url;
      fake.paths.push(url.pathname);
      if (url.pathname === `/${fake.did}`) {
        return Response.json({
          "@context": ["https://www.w3.org/ns/did/v1"],
          id: fake.did,
          alsoKnownAs: fake.alsoKnownAs,
          verificationMethod: [],
          service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: base }],
        });
      }
      if (url.pathname === "/xrpc/com.atproto.identity.resolveHandle") {
        if (url.searchParams.get("handle") !== fake.handle) return Response.json({ error: "InvalidRequest" }, { status: 400 });
        return Response.json({ did: fake.did });
      }
      if (url.pathname === "/.well-known/oauth-protected-resource") return Response.json({ resource: base, authorization_servers: [base] });
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer: base,
          authorization_endpoint: `${base}/oauth/authorize`,
          token_endpoint: `${base}/oauth/token`,
          pushed_authorization_request_endpoint: `${base}/oauth/par`,
          require_pushed_authorization_requests: true,
          authorization_response_iss_parameter_supported: true,
          client_id_metadata_document_supported: true,
          dpop_signing_alg_values_supported: ["ES256"],
          scopes_supported: ["atproto", "transition:generic"],
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
        });
      }
      if (url.pathname === "/oauth/par" && request.method === "POST") {
        const jkt = await checkDpop(request, url);
        if (jkt instanceof Response) return jkt;
        const form = new URLSearchParams(await request.text());
        const metadata = await options.clientMetadata(form.get("client_id") ?? "");
        if (metadata.client_id !== form.get("client_id")) return oauthError("invalid_client");
        if (metadata.token_endpoint_auth_method !== "none" || metadata.dpop_bound_access_tokens !== true) return oauthError("invalid_client_metadata");
        if (!(metadata.redirect_uris as string[]).includes(form.get("redirect_uri") ?? "")) return oauthError("invalid_redirect_uri");
        if (form.get("response_type") !== "code" || form.get("code_challenge_method") !== "S256" || !form.get("code_challenge")) return oauthError("invalid_request");
        if (!(form.get("scope") ?? "").split(" ").includes("atproto")) return oauthError("invalid_scope");
        fake.pars.push({ form, jkt });
        const requestUri = `urn:ietf:params:oauth:request_uri:req-${++n}`;
        requests.set(requestUri, { form, jkt });
        return Response.json({ request_uri: requestUri, expires_in: 300 }, { status: 201 });
      }
      if (url.pathname === "/oauth/authorize") {
        const pushed = requests.get(url.searchParams.get("request_uri") ?? "");
        if (!pushed || url.searchParams.get("client_id") !== pushed.form.get("client_id")) return new Response("unknown request", { status: 400 });
        requests.delete(url.searchParams.get("request_uri")!);
        const code = `atcode-${++n}`;
        codes.set(code, { ...pushed, sub: fake.signInAs, used: false });
        const target = new URL(pushed.form.get("redirect_uri")!);
        target.searchParams.set("code", code);
        target.searchParams.set("state", pushed.form.get("state")!);
        target.searchParams.set("iss", base);
        return new Response(null, { status: 302, headers: { location: target.toString() } });
      }
      if (url.pathname === "/oauth/token" && request.method === "POST") {
        const jkt = await checkDpop(request, url);
        if (jkt instanceof Response) return jkt;
        const form = new URLSearchParams(await request.text());
        fake.tokenRequests.push({ form, jkt });
        const entry = codes.get(form.get("code") ?? "");
        if (!entry || entry.used) return oauthError("invalid_grant");
        entry.used = true;
        if (entry.jkt !== jkt) return oauthError("invalid_dpop_proof"); // DPoP binding: same key as the PAR
        if (form.get("client_id") !== entry.form.get("client_id") || form.get("redirect_uri") !== entry.form.get("redirect_uri")) return oauthError("invalid_grant");
        const challenge = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
        if (challenge !== entry.form.get("code_challenge")) return oauthError("invalid_grant");
        return Response.json({ access_token: "dpop-at", token_type: "DPoP", expires_in: 3600, scope: "atproto", sub: entry.sub });
      }
      return new Response("not found", { status: 404 });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
