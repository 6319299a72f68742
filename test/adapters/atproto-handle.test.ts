import { afterEach, describe, expect, test } from "bun:test";
import { createAtprotoClient } from "../../src/adapters/atproto-oauth.ts";
import type { FetchLike } from "../../src/adapters/outbound.ts";
import { OutboundError } from "../../src/security/outbound-errors.ts";
import { startFakeAtproto, type FakeAtproto } from "../helpers/fake-atproto.ts";

// Handle resolution without an XRPC resolver (KITH_ATPROTO_HANDLE_RESOLVER unset), as in
// production: DNS TXT `_atproto.<handle>` first, then HTTPS `/.well-known/atproto-did`. DNS and
// the handle's web server are injected; the PLC, PDS and authorization server are the fake world.

const DID = "did:plc:ewvi7nxzyoun6zhxrhs64oiz";
const HANDLE = "alice.test";
const CLIENT_ID = "https://alice.example.com/auth/atproto/client-metadata.json";
const REDIRECT = "https://console.alice.example.com/callback";
const START = { redirectUri: REDIRECT, state: "state-12345678", codeVerifier: "client-verifier-0123456789-0123456789-0123456789" };

let fake: FakeAtproto;
afterEach(() => fake?.stop());

async function world() {
  fake = await startFakeAtproto({
    did: DID,
    handle: HANDLE,
    now: () => Date.now(),
    clientMetadata: async (clientId) => ({ client_id: clientId, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", dpop_bound_access_tokens: true }),
  });
}

/** A DNS answer (or failure) and a web server for the handle's own domain; the rest goes to the fake world. */
function client(dns: () => Promise<string[][]>, wellKnown: (url: string) => Response | null = () => null) {
  const looked: string[] = [];
  const fetched: string[] = [];
  const fetchLike: FetchLike = async (url, init) => {
    if (url.startsWith(`https://${HANDLE}/`)) {
      fetched.push(url);
      return wellKnown(url) ?? new Response("not found", { status: 404 });
    }
    return fetch(url, init);
  };
  const c = createAtprotoClient({
    owner: HANDLE,
    clientId: CLIENT_ID,
    plcUrl: fake.url,
    handleResolver: null,
    now: () => Date.now(),
    fetch: fetchLike,
    resolveTxt: async (name) => {
      looked.push(name);
      return dns();
    },
  });
  return { c, looked, fetched };
}

const noRecord = async (): Promise<string[][]> => {
  throw Object.assign(new Error("queryTxt ENODATA _atproto.alice.test"), { code: "ENODATA" });
};

describe("AT Protocol handle resolution (DNS TXT, then HTTPS well-known)", () => {
  test("a DNS TXT record did=… names the DID; the well-known URL is not asked", async () => {
    await world();
    const { c, looked, fetched } = client(async () => [["v=spf1 -all"], ["did=", DID.slice(0, 10), DID.slice(10)]]);
    const { pending } = await c.start(START);
    expect(pending.did).toBe(DID);
    expect(looked).toEqual([`_atproto.${HANDLE}`]);
    expect(fetched).toEqual([]);
    expect(fake.pars).toHaveLength(1);
  });

  test("without a TXT record the handle's https://<handle>/.well-known/atproto-did answers", async () => {
    await world();
    const { c, fetched } = client(noRecord, () => new Response(`${DID}\n`, { headers: { "content-type": "text/plain" } }));
    const { pending } = await c.start(START);
    expect(pending.did).toBe(DID);
    expect(fetched).toEqual([`https://${HANDLE}/.well-known/atproto-did`]);
  });

  test("two conflicting TXT records are not trusted: the well-known URL decides", async () => {
    await world();
    const { c, fetched } = client(async () => [[`did=${DID}`], ["did=did:plc:aaaaaaaaaaaaaaaaaaaaaaaa"]], () => new Response(DID));
    expect((await c.start(START)).pending.did).toBe(DID);
    expect(fetched).toHaveLength(1);
  });

  test("neither DNS nor the well-known URL resolves the handle → refused before anything is pushed", async () => {
    await world();
    const { c } = client(noRecord);
    const err = await c.start(START).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as Error).message).toContain(`cannot resolve the handle ${HANDLE}`);
    expect(fake.pars).toHaveLength(0);
  });

  test("a well-known answer that is not a DID, or a DID whose document does not claim the handle, is refused", async () => {
    await world();
    const notDid = client(noRecord, () => new Response("<html>hello</html>"));
    expect(((await notDid.c.start(START).catch((e: unknown) => e)) as Error).message).toContain("cannot resolve the handle");
    fake.alsoKnownAs = ["at://someone-else.test"];
    const unclaimed = client(async () => [[`did=${DID}`]]);
    expect(((await unclaimed.c.start(START).catch((e: unknown) => e)) as Error).message).toContain(`does not claim the handle ${HANDLE}`);
    expect(fake.pars).toHaveLength(0);
  });
});
