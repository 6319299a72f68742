import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ed25519PublicKey, ed25519Sign, nobleStrictVerifier } from "../../src/ink/ed25519.ts";
import { nativeEd25519Sign } from "../../src/security/ed25519-native.ts";
import { seededBytes } from "../helpers/seeded-bytes.ts";

test("native Ed25519 signing gives noble's bytes (deterministic RFC 8032), for several keys in turn", () => {
  for (let i = 0; i < 20; i++) {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const message = crypto.getRandomValues(new Uint8Array(i * 13));
    expect(nativeEd25519Sign(message, seed)).toEqual(ed25519Sign(message, seed));
    expect(nativeEd25519Sign(message, seed)).toEqual(ed25519Sign(message, seed)); // the cached key
  }
});

test("native signing gives noble's bytes over 250 seeded keys and messages of 0 to 4 KiB, and the signature verifies", () => {
  const { bytes, below } = seededBytes(0x5eed);
  for (let i = 0; i < 250; i++) {
    const seed = bytes(32);
    const message = bytes(i < 64 ? i : below(4096));
    const noble = ed25519Sign(message, seed);
    expect(Buffer.from(nativeEd25519Sign(message, seed)).toString("hex")).toBe(Buffer.from(noble).toString("hex"));
    expect(nativeEd25519Sign(message, Uint8Array.from(seed))).toEqual(noble); // a copy of the key
    if (i % 25 === 0) expect(nobleStrictVerifier(ed25519PublicKey(seed), message, noble)).toBe(true);
  }
});

test("a secret key that is not 32 bytes throws under both backends (misuse, never a signature)", () => {
  for (const length of [0, 31, 33, 64]) {
    expect(() => ed25519Sign(new Uint8Array(1), new Uint8Array(length))).toThrow();
    expect(() => nativeEd25519Sign(new Uint8Array(1), new Uint8Array(length))).toThrow();
  }
});

/**
 * The INK core's signers that take a backend, and the app's calls of them: every call outside
 * src/ink passes the native one (noble's pure-JS signature costs ~480 µs of the event loop, the
 * native one ~25 µs, for the same bytes). A receipt is signed for every message a Kith peer sends.
 */
const SIGNERS_WITH_BACKEND = ["signBody", "buildSignedEnvelope", "prepareOutbound", "signTransport", "buildReceipt", "signAuditResponse", "signAgentCard"];

test("every call of an INK signer outside src/ink passes the native signer", () => {
  const calls: string[] = [];
  for (const [file, text] of appSources()) {
    for (const name of SIGNERS_WITH_BACKEND) {
      for (const m of text.matchAll(new RegExp(`\\b${name}\\(`, "g"))) {
        if (/function\s+$/.test(text.slice(0, m.index))) continue;
        const args = balanced(text, m.index + m[0].length);
        calls.push(`${file}: ${name}(…)${args.includes("nativeEd25519Sign") ? "" : " WITHOUT the native signer"}`);
      }
    }
  }
  expect(calls.filter((c) => c.includes("WITHOUT"))).toEqual([]);
  expect(calls.length).toBeGreaterThanOrEqual(10); // the scan finds the app's calls (outbox, receipts, card, audit, queries)
});

test("the app seals (prepareOutbound) and opens (authenticateInbound's context) with native X25519 and AES-GCM", () => {
  const sites: string[] = [];
  for (const [file, text] of appSources()) {
    for (const m of text.matchAll(/\bprepareOutbound\(/g)) sites.push(`${file}: prepareOutbound${balanced(text, m.index + m[0].length).includes("envelopeCrypto: nativeEnvelopeCrypto") ? "" : " WITHOUT native envelope crypto"}`);
    for (const m of text.matchAll(/decryptionKeys: /g)) {
      const line = text.slice(text.lastIndexOf("\n", m.index) + 1, text.indexOf("\n", m.index));
      sites.push(`${file}: an inbound context${line.includes("envelopeCrypto: nativeEnvelopeCrypto") ? "" : " WITHOUT native envelope crypto"}`);
    }
  }
  expect(sites.filter((s) => s.includes("WITHOUT"))).toEqual([]);
  expect(sites.length).toBeGreaterThanOrEqual(2);
});

/** Every source file of src/ outside the INK core, with its text. */
function appSources(): [string, string][] {
  const root = join(import.meta.dir, "../../src");
  return [...new Bun.Glob("**/*.ts").scanSync(root)].filter((f) => !f.startsWith("ink/")).map((f) => [f, readFileSync(join(root, f), "utf8")]);
}

/** The text of a call's arguments: from after `(` to its matching `)`. */
function balanced(text: string, from: number): string {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(from, i);
  }
  return text.slice(from);
}
