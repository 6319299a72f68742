import * as v from "valibot";

export const TokenPairDoc = v.pipe(
  v.object({
    accessToken: v.pipe(v.string(), v.description("Owner access token (JWT, 15 minutes): Authorization: Bearer <accessToken>")),
    refreshToken: v.pipe(v.string(), v.description("Opaque refresh token, single use: POST /auth/refresh rotates it")),
    userId: v.pipe(v.string(), v.description("The owner's stable subject")),
    tokenType: v.literal("Bearer"),
    expiresIn: v.pipe(v.number(), v.description("Access token lifetime in seconds")),
  }),
  v.description("TokenPair"),
);

/** A sign-in or refresh sent with `X-Kith-Session: cookie`: the refresh token is in the HttpOnly cookie, not here. */
export const CookieSessionDoc = v.pipe(
  v.object({
    accessToken: TokenPairDoc.entries.accessToken,
    userId: TokenPairDoc.entries.userId,
    tokenType: v.literal("Bearer"),
    expiresIn: TokenPairDoc.entries.expiresIn,
    session: v.pipe(v.literal("cookie"), v.description("The refresh token was set as the HttpOnly kith_session cookie (Path=/auth/session)")),
  }),
  v.description("Browser session"),
);

export const COOKIE_SIGN_IN =
  "Sent with `X-Kith-Session: cookie` (browsers), the refresh token is set as an HttpOnly, SameSite=Strict cookie scoped to /auth/session " +
  "(refreshed and ended there) and the body carries the access token with session: cookie instead.";

/** RFC 6749 §5.1 shape, answered when /auth/refresh is called as an OAuth token endpoint (form body). */
export const OAuthTokenDoc = v.object({
  access_token: v.string(),
  token_type: v.literal("Bearer"),
  expires_in: v.number(),
  refresh_token: v.string(),
});

/** RFC 6749 §5.2 error shape (form-encoded calls of the token endpoint only). */
export const OAuthErrorDoc = v.object({ error: v.string(), error_description: v.string() });

/** The same grammar as the sign-in verbs' check (WHATWG "valid e-mail address"), so the document says `format: email`. */
export const Email = v.pipe(v.string(), v.maxLength(320), v.rfcEmail("email: not a valid email address"), v.description("Email address"));

/** RFC 6749 `state`: printable ASCII; at least 8 characters so it can carry real randomness. */
export const State = v.pipe(v.string(), v.regex(/^[\x21-\x7e]{8,512}$/, "8-512 printable ASCII characters"), v.description("Opaque, unguessable, single-use value echoed back by the provider"));

export const OAuthProvider = v.picklist(["google", "apple", "atproto"]);
