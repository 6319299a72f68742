import { describe, expect, test } from "bun:test";
import {
  canonicalize,
  decodeMultibaseKey,
  deriveAgentId,
  encodeEd25519PublicKey,
  encodeX25519PublicKey,
  normalizePrincipal,
  parseTimestamp,
} from "../../src/ink/index.ts";

const PK = Uint8Array.from(Buffer.from("22fec375ea0fe9d1b05996aac2485c17fafda30b7b6718c76e3169fa16c419c4", "hex"));
const Z = "z6MkgosDnsjFCTf73Ms7S4Nzwe78GD7Bzn94hTU462M4GirX";

describe("keys and principals (INK §2)", () => {
  test("derivation matches the digest's worked example", () => {
    expect(encodeEd25519PublicKey(PK)).toBe(Z);
    expect(encodeX25519PublicKey(PK)).toBe("z6LSe2nLiwHfxNtP2FQBH8w7R8mcHnNTHW4rtRGokD2a4squ");
    expect(deriveAgentId(PK, "tulpa")).toBe(`tulpa:${Z}`);
    expect(deriveAgentId(PK, "svc")).toBe(`svc:${Z}`);
  });
  test("svc:, tulpa: and ink: spell one principal in both modes", () => {
    for (const p of ["svc:", "tulpa:", "ink:"]) expect(normalizePrincipal(p + Z)).toEqual({ ok: true, principal: `key:${Z}` });
    expect(normalizePrincipal("svc:zBAD")).toEqual({ ok: true, principal: "raw:svc:zBAD" });
  });
  test("decodeMultibaseKey tells the codecs apart and rejects junk", () => {
    expect(decodeMultibaseKey(Z)?.kind).toBe("ed25519");
    expect(decodeMultibaseKey("z6LSe2nLiwHfxNtP2FQBH8w7R8mcHnNTHW4rtRGokD2a4squ")?.kind).toBe("x25519");
    for (const bad of ["", "z", "Z6Mk", "z0OIl", `z1${Z.slice(1)}`, 42]) expect(decodeMultibaseKey(bad)).toBeNull();
  });
});

describe("canonicalize and timestamps", () => {
  test("JCS sorts by UTF-16 units and refuses unsafe values", () => {
    expect(canonicalize({ protocol: "ink/0.1", id: "x" })).toEqual({ ok: true, text: '{"id":"x","protocol":"ink/0.1"}' });
    expect(canonicalize({ "\u20ac": 1, "\ud83d\ude00": 2, a: [true, null] })).toEqual({
      ok: true,
      text: '{"a":[true,null],"\u20ac":1,"\ud83d\ude00":2}',
    });
    for (const bad of [1.5, -0, 2 ** 53, NaN, "\ud800", { 'a"': 1 }, new Date(0), undefined, [undefined]]) {
      expect(canonicalize(bad).ok).toBe(false);
    }
  });
  test("strict timestamp grammar", () => {
    expect(parseTimestamp("2026-01-01T00:00:00.000Z")).toBe(1767225600000);
    expect(parseTimestamp("1969-12-31T23:59:59.9999Z")).toBe(-1);
    expect(parseTimestamp("2026-01-01 00:00:00Z")).toBeNull();
  });
});

describe("base58 decode fast path", () => {
  test("agrees with multiformats' base58btc on random and malformed strings", async () => {
    const { base58btc } = await import("multiformats/bases/base58");
    const { base58Decode } = await import("../../src/ink/multibase.ts");
    const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let seed = 42;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    for (let i = 0; i < 20_000; i++) {
      let s = "";
      const len = Math.floor(rnd() * 60);
      for (let k = 0; k < len; k++) s += rnd() < 0.02 ? ("0Il O+é"[Math.floor(rnd() * 7)] as string) : rnd() < 0.1 ? "1" : ALPHABET[Math.floor(rnd() * 58)];
      let want: string | null;
      try {
        want = Buffer.from(base58btc.baseDecode(s)).toString("hex");
      } catch {
        want = null;
      }
      const got = base58Decode(s);
      expect({ s, got: got === null ? null : Buffer.from(got).toString("hex") }).toEqual({ s, got: want });
    }
    for (let i = 0; i < 5_000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rnd() * 40) }, () => (rnd() < 0.2 ? 0 : Math.floor(rnd() * 256)));
      expect(base58Decode(base58btc.encode(bytes), 1)).toEqual(bytes);
    }
  });
});

describe("canonicalizePair", () => {
  test("stripped equals JCS of the object without the member, wherever it sorts", async () => {
    const { canonicalizePair } = await import("../../src/ink/jcs.ts");
    const cases: Record<string, unknown>[] = [
      { signature: "s" },
      { signature: "s", z: "😀" },
      { a: "é日本", signature: "s" },
      { a: 1, signature: "s", z: [1, "€"] },
      { a: 1, b: 2 },
      {},
    ];
    for (const obj of cases) {
      const pair = canonicalizePair(obj, "signature");
      const { signature: _s, ...rest } = obj;
      expect(pair.ok && pair.stripped).toBe((canonicalize(rest) as { text: string }).text);
      expect(pair.ok && pair.full).toBe((canonicalize(obj) as { text: string }).text);
      if (pair.ok && pair.cut !== null) expect(pair.full.slice(0, pair.cut[0]) + pair.full.slice(pair.cut[1])).toBe(pair.stripped);
    }
  });
});

describe("signTransport", () => {
  test("returns a ready Authorization header value; an unsendable keyId is left out", async () => {
    const { signTransport, parseAuthorizationHeader, generateEd25519KeyPair, verifyTransportSignature } = await import("../../src/ink/index.ts");
    const k = generateEd25519KeyPair(new Uint8Array(32).fill(8));
    const input = { method: "POST", path: "/ink", recipientDid: "did:web:r.example", body: { a: 1, timestamp: "2026-01-01T00:00:00Z" }, timestamp: "2026-01-01T00:00:00Z" };
    const s = signTransport(input, k.secretKey, "sig-1");
    if (!s.ok) throw new Error(s.detail);
    expect(parseAuthorizationHeader(s.authorization)).toEqual({ ok: true, signature: s.signature, keyId: "sig-1" });
    expect(verifyTransportSignature(input, s.signature, k.publicKey)).toBe(true);
    const odd = signTransport(input, k.secretKey, "key with spaces");
    expect(odd.ok && parseAuthorizationHeader(odd.authorization)).toEqual({ ok: true, signature: odd.ok ? odd.signature : "", keyId: null });
    expect(signTransport({ ...input, path: "/a\nb" }, k.secretKey)).toMatchObject({ ok: false, reason: "invalid_signature_base" });
  });
});
