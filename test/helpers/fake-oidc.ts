import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey as JoseKey } from "jose";
import { createHash } from "node:crypto";

/**
 * A fake OpenID Connect provider on loopback (Bun.serve, port 0) playing Google or Apple: a
 * discovery document, an authorization endpoint the test "browser" visits, a token endpoint that
 * checks client authentication, redirect URI and PKCE, and ID tokens signed with its own RS256
 * key served at its JWKS URI. Time comes from the node's test clock.
 */
export interface FakeIdentity {
  sub: string;
  email?: string;
  email_verified?: boolean | string;
}

export interface FakeOidc {
  url: string;
  /** Who signs in at the next authorization. */
  next: FakeIdentity;
  /** Parameters of every authorization request. */
  authorizations: URLSearchParams[];
  tokenRequests: URLSearchParams[];
  /** Changes to the next ID token (to prove the node verifies). */
  tamper: { aud?: string; iss?: string; nonce?: string; otherKey?: boolean; expired?: boolean };
  /** Answer the token endpoint with this status instead (e.g. 500 or a redirect). */
  tokenStatus: number | null;
  stop(): void;
}

export interface FakeOidcOptions {
  clientId: string;
  /** Google: a static secret; Apple: verified as an ES256 JWT with this public key. */
  clientSecret?: string;
  appleKey?: { publicKey: JoseKey; teamId: string; keyId: string };
  pkce: boolean;
  authMethods: string[];
  /** Advertise RFC 9207 support and put `iss` in every authorization response. */
  issParameter?: boolean;
  now: () => number;
}

export async function startFakeOidc(options: FakeOidcOptions): Promise<FakeOidc> {
  const signing = await generateKeyPair("RS256");
  const other = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(signing.publicKey)), kid: "fake-1", alg: "RS256", use: "sig" };
  const codes = new Map<string, { params: URLSearchParams; identity: FakeIdentity; used: boolean }>();
  let counter = 0;
  const fake: FakeOidc = { url: "", next: { sub: "owner-sub" }, authorizations: [], tokenRequests: [], tamper: {}, tokenStatus: null, stop: () => server.stop(true) };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const base = fake.url;
      if (url.pathname === "/.well-known/openid-configuration") {
        return Response.json({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          jwks_uri: `${base}/jwks`,
          response_types_supported: ["code"],
          id_token_signing_alg_values_supported: ["RS256"],
          token_endpoint_auth_methods_supported: options.authMethods,
          ...(options.pkce ? { code_challenge_methods_supported: ["S256"] } : {}),
          ...(options.issParameter ? { authorization_response_iss_parameter_supported: true } : {}),
        });
      }
      if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
      if (url.pathname === "/authorize") {
        const p = url.searchParams;
        fake.authorizations.push(p);
        if (p.get("client_id") !== options.clientId || p.get("response_type") !== "code") return new Response("bad client", { status: 400 });
        if (options.pkce && (p.get("code_challenge_method") !== "S256" || !p.get("code_challenge"))) return new Response("PKCE required", { status: 400 });
        const code = `code-${++counter}`;
        codes.set(code, { params: p, identity: { ...fake.next }, used: false });
        const target = new URL(p.get("redirect_uri")!);
        if (p.get("response_mode") === "form_post") {
          const iss = options.issParameter ? `<input name="iss" value="${base}">` : "";
          return new Response(`<form method="post" action="${target}"><input name="code" value="${code}"><input name="state" value="${p.get("state")}">${iss}</form>`, { headers: { "content-type": "text/html" } });
        }
        target.searchParams.set("code", code);
        target.searchParams.set("state", p.get("state")!);
        if (options.issParameter) target.searchParams.set("iss", base);
        return new Response(null, { status: 302, headers: { location: target.toString() } });
      }
      if (url.pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(await request.text());
        fake.tokenRequests.push(form);
        if (fake.tokenStatus === 302) return new Response(null, { status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" } });
        if (fake.tokenStatus !== null) return new Response("oops", { status: fake.tokenStatus });
        if (!(await clientAuthenticated(request, form))) return Response.json({ error: "invalid_client" }, { status: 401 });
        const entry = codes.get(form.get("code") ?? "");
        if (!entry || entry.used) return Response.json({ error: "invalid_grant" }, { status: 400 });
        entry.used = true;
        if (form.get("redirect_uri") !== entry.params.get("redirect_uri")) return Response.json({ error: "invalid_grant", error_description: "redirect_uri" }, { status: 400 });
        const challenge = entry.params.get("code_challenge");
        if (challenge) {
          const verifier = form.get("code_verifier") ?? "";
          if (createHash("sha256").update(verifier).digest("base64url") !== challenge) return Response.json({ error: "invalid_grant", error_description: "PKCE" }, { status: 400 });
        }
        const t = fake.tamper;
        fake.tamper = {};
        const iat = Math.floor(options.now() / 1000) - (t.expired ? 7200 : 0);
        const idToken = await new SignJWT({ ...entry.identity, nonce: t.nonce ?? entry.params.get("nonce") })
          .setProtectedHeader({ alg: "RS256", kid: "fake-1" })
          .setIssuer(t.iss ?? base)
          .setAudience(t.aud ?? options.clientId)
          .setSubject(entry.identity.sub)
          .setIssuedAt(iat)
          .setExpirationTime(iat + 3600)
          .sign(t.otherKey ? other.privateKey : signing.privateKey);
        return Response.json({ access_token: "at-1", token_type: "Bearer", expires_in: 3600, id_token: idToken });
      }
      return new Response("not found", { status: 404 });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;

  async function clientAuthenticated(request: Request, form: URLSearchParams): Promise<boolean> {
    let id: string | null = form.get("client_id");
    let secret: string | null = form.get("client_secret");
    const basic = request.headers.get("authorization")?.match(/^Basic (.+)$/);
    if (basic) {
      if (!options.authMethods.includes("client_secret_basic")) return false;
      const [u, p] = Buffer.from(basic[1]!, "base64").toString().split(":");
      id = decodeURIComponent(u!.replace(/\+/g, " "));
      secret = decodeURIComponent(p!.replace(/\+/g, " "));
    } else if (!options.authMethods.includes("client_secret_post")) {
      return false;
    }
    if (id !== options.clientId || !secret) return false;
    if (options.appleKey) {
      try {
        const { payload, protectedHeader } = await jwtVerify(secret, options.appleKey.publicKey, { algorithms: ["ES256"], issuer: options.appleKey.teamId, subject: options.clientId, audience: fake.url, currentDate: new Date(options.now()) });
        return protectedHeader.kid === options.appleKey.keyId && typeof payload.exp === "number";
      } catch {
        return false;
      }
    }
    return secret === options.clientSecret;
  }
  return fake;
}

/** Follows the node's authorization URL at the fake provider, as the owner's browser would: the code, state (and iss) it hands back. */
export async function visitProvider(url: string): Promise<{ code: string; state: string; iss: string | null; redirectTo: string }> {
  const res = await fetch(url, { redirect: "manual" });
  if (res.status === 302) {
    const location = new URL(res.headers.get("location")!);
    const q = location.searchParams;
    return { code: q.get("code")!, state: q.get("state")!, iss: q.get("iss"), redirectTo: `${location.origin}${location.pathname}` };
  }
  const html = await res.text();
  if (res.status !== 200) throw new Error(`provider answered ${res.status}: ${html}`);
  const field = (name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? null;
  return { code: field("code")!, state: field("state")!, iss: field("iss"), redirectTo: html.match(/action="([^"]*)"/)![1]! };
}
