import { expect, test } from "bun:test";
import { lazyOidcClient } from "../../src/node/sign-in.ts";

// Google/Apple sign-in's module loads on the first sign-in through the provider. A load that fails
// (a transient error) must not be remembered: the next sign-in loads again.
test("a failed first load of the OIDC module is retried by the next sign-in; concurrent calls share one load", async () => {
  const real = await import("../../src/adapters/oidc.ts");
  let loads = 0;
  const client = lazyOidcClient(
    () => ({ issuer: "https://accounts.example", clientId: "kith", clientSecret: async () => "s", scopes: ["openid"], now: () => Date.now() }),
    async () => {
      loads++;
      if (loads === 1) throw new Error("transient load failure");
      return real;
    },
  );
  const input = { redirectUri: "https://node.example/auth/callback", state: "s", codeVerifier: "v".repeat(43), nonce: "n" };
  await expect(client.authorizationUrl(input as never)).rejects.toThrow("transient load failure");
  const [a, b] = await Promise.allSettled([client.authorizationUrl(input as never), client.authorizationUrl(input as never)]);
  expect(loads).toBe(2);
  expect(a.status).toBe(b.status);
});
