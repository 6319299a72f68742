import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { decodeEd25519PublicKey, ed25519PublicKey, encodeEd25519PublicKey } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { extensionSigningString, verifyExtensionSignature } from "../../src/security/extension-request.ts";

// docs/extensions.md §4's worked example is what an extension author copies: its bytes must be the
// node's. Read from the document itself, so an edit to either side fails here.
const doc = readFileSync(new URL("../../docs/extensions.md", import.meta.url), "utf8");

test("the worked example's key, signed strings and signatures are what the node computes and accepts", () => {
  const section = doc.slice(doc.indexOf("### Worked example"), doc.indexOf("## 5."));
  const seed = /seed, hex\): `([0-9a-f]{64})`/.exec(section)![1]!;
  const pub = /public key `(z6Mk\w+)`/.exec(section)![1]!;
  expect(encodeEd25519PublicKey(ed25519PublicKey(Buffer.from(seed, "hex")))).toBe(pub);
  const nonce = /nonce\s+`([^`]+)`/.exec(section)![1]!;
  const timestamp = /timestamp `([^`]+)`/.exec(section)![1]!;
  const blocks = [...section.matchAll(/```\n([\s\S]*?)\n```\n\nX-Extension-Signature: `([A-Za-z0-9_-]{86})`/g)];
  expect(blocks.length).toBe(2);
  const cases = [
    { method: "GET", target: "/ext/v1/events?since=42&limit=10", body: "" },
    { method: "POST", target: "/ext/v1/intents", body: /the body `([^`]+)`/.exec(section)![1]! },
  ];
  cases.forEach((c, i) => {
    const signing = extensionSigningString(c.method, c.target, nonce, timestamp, new TextEncoder().encode(c.body));
    expect(signing).toBe(blocks[i]![1]!);
    expect(verifyExtensionSignature(blocks[i]![2]!, decodeEd25519PublicKey(pub)!, signing, nativeStrictVerifier)).toBe(true);
  });
});
