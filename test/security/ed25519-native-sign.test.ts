import { expect, test } from "bun:test";
import { ed25519Sign } from "../../src/ink/ed25519.ts";
import { nativeEd25519Sign } from "../../src/security/ed25519-native.ts";

test("native Ed25519 signing gives noble's bytes (deterministic RFC 8032), for several keys in turn", () => {
  for (let i = 0; i < 20; i++) {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const message = crypto.getRandomValues(new Uint8Array(i * 13));
    expect(nativeEd25519Sign(message, seed)).toEqual(ed25519Sign(message, seed));
    expect(nativeEd25519Sign(message, seed)).toEqual(ed25519Sign(message, seed)); // the cached key
  }
});
