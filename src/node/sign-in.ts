import { randomBytes } from "node:crypto";
import type { NodeConfig } from "../config.ts";
import type { Clock } from "../domain/context.ts";
import type { Mailer } from "../domain/owner/mailer.ts";
import type { OidcSignIn, SignInDeps } from "../domain/owner/sign-in.ts";
import { createAtprotoClient } from "../adapters/atproto-oauth.ts";
import { deriveKey } from "../security/node-secret.ts";
import type { OidcClient, OidcProviderOptions } from "../adapters/oidc.ts";
import type { FetchLike } from "../adapters/outbound.ts";
import { createDeviceTokens } from "../security/device-token.ts";
import { createOwnerTokens } from "../security/owner-token.ts";

/** How the owner signs in on this node; built by `kith serve` from settings, by tests directly. */
export interface AuthOptions {
  /** The node secret (auth-secret beside the key file). */
  secret: Uint8Array;
  ownerEmail: string | null;
  mailer: Mailer;
  redirectUris: string[];
  google: { issuer: string; clientId: string; clientSecret: string; subject: string | null } | null;
  apple: { issuer: string; clientId: string; teamId: string; keyId: string; privateKeyPem: string; subject: string | null } | null;
  atproto: { owner: string; plcUrl: string; handleResolver: string | null } | null;
  /** Outbound fetch for provider calls (defaults to the global fetch, bounded by adapters/outbound). */
  fetch?: FetchLike;
}

export const GOOGLE_SCOPES = ["openid", "email"];
/** Apple sends the email only with the email scope, and then only by form_post to the redirect URI. */
export const APPLE_SCOPES = ["email"];

export function atprotoClientId(publicUrl: string): string {
  return `${publicUrl}/auth/atproto/client-metadata.json`;
}

export function buildSignIn(auth: AuthOptions, node: { publicUrl: string }, clock: Clock): { signIn: SignInDeps; atprotoClientMetadata: () => Record<string, unknown> | null } {
  const now = () => clock.now();
  const fetchOpt = auth.fetch ? { fetch: auth.fetch } : {};
  const oidc: Partial<Record<"google" | "apple", OidcSignIn>> = {};
  if (auth.google) {
    const g = auth.google;
    const client = lazyOidcClient(() => ({
      issuer: g.issuer,
      clientId: g.clientId,
      clientSecret: async () => g.clientSecret,
      scopes: GOOGLE_SCOPES,
      // Google's ID tokens may carry the issuer without its scheme (Google's OpenID documentation).
      issuerAliases: g.issuer.startsWith("https://") ? [g.issuer.slice("https://".length)] : [],
      now,
      ...fetchOpt,
    }));
    oidc.google = { client, subject: g.subject };
  }
  if (auth.apple) {
    const a = auth.apple;
    const client = lazyOidcClient(({ appleClientSecret }) => ({
      issuer: a.issuer,
      clientId: a.clientId,
      clientSecret: appleClientSecret({ teamId: a.teamId, keyId: a.keyId, clientId: a.clientId, privateKeyPem: a.privateKeyPem, audience: a.issuer, now }),
      scopes: APPLE_SCOPES,
      extraParams: { response_mode: "form_post" },
      now,
      ...fetchOpt,
    }));
    oidc.apple = { client, subject: a.subject };
  }
  const clientId = atprotoClientId(node.publicUrl);
  const atproto = auth.atproto ? createAtprotoClient({ owner: auth.atproto.owner, clientId, plcUrl: auth.atproto.plcUrl, handleResolver: auth.atproto.handleResolver, now, ...fetchOpt }) : null;
  const signIn: SignInDeps = {
    tokens: createOwnerTokens({ key: deriveKey(auth.secret, "owner-jwt"), publicUrl: node.publicUrl, now }),
    codeKey: deriveKey(auth.secret, "owner-code"),
    refreshKey: deriveKey(auth.secret, "owner-refresh"),
    devices: createDeviceTokens({ key: deriveKey(auth.secret, "owner-device"), now }),
    ownerEmail: auth.ownerEmail,
    mailer: auth.mailer,
    publicUrl: node.publicUrl,
    redirectUris: auth.redirectUris,
    oidc,
    atproto,
  };
  const atprotoClientMetadata = () =>
    atproto
      ? {
          client_id: clientId,
          client_name: "Kith",
          client_uri: node.publicUrl,
          application_type: "web",
          grant_types: ["authorization_code"],
          response_types: ["code"],
          scope: "atproto",
          redirect_uris: auth.redirectUris,
          token_endpoint_auth_method: "none",
          dpop_bound_access_tokens: true,
        }
      : null;
  return { signIn, atprotoClientMetadata };
}

/**
 * An OIDC client whose module (arctic, jose's remote JWKS: ~90 modules, a few ms and MiB at every
 * start) is loaded on the first sign-in through that provider. Every method of OidcClient is async,
 * so callers see no difference; concurrent first calls share one load and one client.
 */
export function lazyOidcClient(
  options: (oidc: typeof import("../adapters/oidc.ts")) => OidcProviderOptions,
  load: () => Promise<typeof import("../adapters/oidc.ts")> = () => import("../adapters/oidc.ts"),
): OidcClient {
  let client: Promise<OidcClient> | null = null;
  // A failed load is not remembered: the next sign-in tries again (else every Google/Apple sign-in
  // would fail until a restart).
  const ready = () =>
    (client ??= load()
      .then((oidc) => oidc.createOidcClient(options(oidc)))
      .catch((e: unknown) => {
        client = null;
        throw e;
      }));
  return {
    authorizationUrl: async (input) => (await ready()).authorizationUrl(input),
    finish: async (input) => (await ready()).finish(input),
  };
}

/** Sign-in options from the node's settings; `readFile` reads the Apple key file. */
export function authOptionsFromConfig(config: NodeConfig, deps: { secret: Uint8Array; mailer: Mailer; readFile: (path: string) => string }): AuthOptions {
  return {
    secret: deps.secret,
    ownerEmail: config.ownerEmail,
    mailer: deps.mailer,
    redirectUris: config.oauthRedirectUris,
    google: config.googleClientId && config.googleClientSecret ? { issuer: config.googleIssuer, clientId: config.googleClientId, clientSecret: config.googleClientSecret, subject: config.googleSubject } : null,
    apple:
      config.appleClientId && config.appleTeamId && config.appleKeyId && config.applePrivateKeyFile
        ? { issuer: config.appleIssuer, clientId: config.appleClientId, teamId: config.appleTeamId, keyId: config.appleKeyId, privateKeyPem: deps.readFile(config.applePrivateKeyFile), subject: config.appleSubject }
        : null,
    atproto: config.atprotoOwner ? { owner: config.atprotoOwner, plcUrl: config.atprotoPlcUrl, handleResolver: config.atprotoHandleResolver } : null,
  };
}

/** Defaults for an app built without sign-in settings (tests of other surfaces): a random secret, mail to the log. */
export function defaultAuthOptions(mailer: Mailer): AuthOptions {
  return { secret: new Uint8Array(randomBytes(32)), ownerEmail: null, mailer, redirectUris: [], google: null, apple: null, atproto: null };
}
