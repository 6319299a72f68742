/**
 * What the clients of outside services (src/adapters: outbound.ts, oidc.ts, atproto-oauth.ts)
 * throw, as classes of their own so the domain can tell them apart without importing an adapter:
 * a provider that could not be reached or answered badly, and a sign-in the provider's answer
 * refuses (a wrong issuer, audience or subject).
 */
export class OutboundError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = "OutboundError";
  }
}

export class SignInRejected extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "SignInRejected";
  }
}
