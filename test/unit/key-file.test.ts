import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendKey, createKeyFile, KeyFileError, readKeyFile, readPublicKeys } from "../../src/adapters/key-file.ts";
import { openWithPassphrase, sealWithPassphrase, secretsEqual } from "../../src/security/secret-box.ts";
import { personaKey } from "../helpers/personas.ts";

const FAST = { N: 2 ** 10, r: 8, p: 1 };
const keys = () => [personaKey("alice", "signing"), personaKey("alice", "encryption")];
const tmpFile = () => join(mkdtempSync(join(tmpdir(), "kith-key-")), "agent-key.json");

function code(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof KeyFileError ? e.code : "other";
  }
}

describe("secret box", () => {
  const aad = new TextEncoder().encode("context");
  test("round trip; wrong passphrase, wrong aad and tampering all fail closed", () => {
    const box = sealWithPassphrase(new TextEncoder().encode("secret"), "pw", aad, FAST);
    expect(new TextDecoder().decode(openWithPassphrase(box, "pw", aad)!)).toBe("secret");
    expect(openWithPassphrase(box, "wrong", aad)).toBeNull();
    expect(openWithPassphrase(box, "pw", new TextEncoder().encode("other"))).toBeNull();
    const tampered = { ...box, ciphertext: box.ciphertext.slice(0, -2) + (box.ciphertext.endsWith("A") ? "BB" : "AA") };
    expect(openWithPassphrase(tampered, "pw", aad)).toBeNull();
    expect(openWithPassphrase({ ...box, kdf: { ...box.kdf, N: 2 ** 40 } }, "pw", aad)).toBeNull();
  });
  test("constant-time comparison helper", () => {
    expect(secretsEqual("abc", "abc")).toBe(true);
    expect(secretsEqual("abc", "abd")).toBe(false);
    expect(secretsEqual("abc", "abcd")).toBe(false);
  });
});

describe("agent-key.json", () => {
  test("is created 0600, refuses to overwrite, and reads back the same keys", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), null);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(code(() => createKeyFile(file, keys(), null))).toBe("exists");
    const read = readKeyFile(file, null);
    expect(read.map((k) => k.publicKeyMultibase)).toEqual(keys().map((k) => k.publicKeyMultibase));
    expect(Buffer.from(read[0]!.privateKey).equals(Buffer.from(keys()[0]!.privateKey))).toBe(true);
  });

  test("is refused when group or others can read it, like ssh", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), null);
    chmodSync(file, 0o640);
    expect(code(() => readKeyFile(file, null))).toBe("insecure_mode");
    chmodSync(file, 0o604);
    expect(() => readKeyFile(file, null)).toThrow(/chmod 600/);
  });

  test("with a passphrase: private keys are not in the file, the public half stays readable", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), "correct horse");
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(Buffer.from(keys()[0]!.privateKey).toString("base64url"));
    expect(text).toContain("scrypt-aes-256-gcm");
    expect(readPublicKeys(file).map((k) => k.keyId)).toEqual(["sig-alice-0", "enc-alice-0"]);
    expect(code(() => readKeyFile(file, null))).toBe("passphrase_required");
    expect(code(() => readKeyFile(file, "wrong"))).toBe("wrong_passphrase");
    expect(readKeyFile(file, "correct horse")).toHaveLength(2);
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine

  test("swapping a public key under a passphrase-sealed file is detected", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), "pw");
    const json = JSON.parse(readFileSync(file, "utf8"));
    json.keys[0].publicKeyMultibase = personaKey("bob", "signing").publicKeyMultibase;
    writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
    expect(code(() => readKeyFile(file, "pw"))).toBe("wrong_passphrase");
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine

  test("a private key that does not match its public key is reported as corrupt", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), null);
    const json = JSON.parse(readFileSync(file, "utf8"));
    json.keys[0].publicKeyMultibase = personaKey("bob", "signing").publicKeyMultibase;
    writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
    expect(code(() => readKeyFile(file, null))).toBe("corrupt");
    writeFileSync(file, "{not json", { mode: 0o600 });
    expect(code(() => readKeyFile(file, null))).toBe("corrupt");
    expect(code(() => readKeyFile(file + ".missing", null))).toBe("missing");
  });

  test("scrypt parameters outside the bounds are refused by name before scrypt runs (never a RangeError, never minutes of work)", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), "pw");
    const original = JSON.parse(readFileSync(file, "utf8"));
    const hostile: Array<[unknown, RegExp]> = [
      [{ N: 2 ** 22, r: 32, p: 1 }, /scrypt N=4194304, r=32 need more than 256 MiB of memory/],
      [{ N: 2 ** 20, r: 8, p: 1 }, /need more than 256 MiB/],
      [{ N: 2 ** 18, r: 7, p: 16 }, /more than 16 times the default work/],
      [{ N: 3000, r: 8, p: 1 }, /scrypt N must be a power of two/],
      [{ N: 2 ** 40, r: 8, p: 1 }, /scrypt N must be a power of two from 1024 \(2\^10\) to 16777216 \(2\^24\), got 1099511627776/],
      [{ N: 2 ** 30, r: 8, p: 1 }, /to 16777216 \(2\^24\), got 1073741824/],
      [{ N: "131072", r: 8, p: 1 }, /scrypt N must be a power of two/],
      [{ N: 2 ** 17, r: 0, p: 1 }, /scrypt r must be an integer from 1 to 32/],
      [{ N: 2 ** 17, r: 8, p: 1e6 }, /scrypt p must be an integer from 1 to 16/],
      [undefined, /scrypt N must be a power of two/],
    ];
    for (const [kdf, message] of hostile) {
      const json = structuredClone(original);
      json.secret.kdf = kdf === undefined ? undefined : { ...(kdf as object), salt: original.secret.kdf.salt };
      writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
      let thrown: unknown = null;
      try {
        readKeyFile(file, "pw");
      } catch (e) {
        thrown = e;
      }
      expect({ kdf, code: thrown instanceof KeyFileError ? thrown.code : String(thrown) }).toEqual({ kdf, code: "corrupt" });
      expect((thrown as Error).message).toMatch(message);
    }
  });

  test("appendKey keeps old keys and adds the new one", () => {
    const file = tmpFile();
    createKeyFile(file, keys(), "pw");
    appendKey(file, personaKey("alice", "signing", 1), "pw");
    expect(readKeyFile(file, "pw").map((k) => k.keyId)).toEqual(["sig-alice-0", "enc-alice-0", "sig-alice-1"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine
});
