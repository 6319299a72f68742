import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { assertPrivateMode, KeyFileError } from "./key-file.ts";

/**
 * `auth-secret` beside agent-key.json: 32 random bytes (base64url, mode 0600) that key the owner
 * access tokens (HS256) and the HMAC of sign-in codes. It never enters the database, so a copy
 * of kith.db alone can neither mint tokens nor test guesses against a stored code. Losing it only
 * signs the owner out; a new one is made at the next start.
 */
export const NODE_SECRET_FILE = "auth-secret";

/** Reads the secret, creating it (exclusively: a racing `kith owner code` and `kith serve` agree) when absent. */
export function loadOrCreateNodeSecret(path: string): Uint8Array {
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeSync(fd, randomBytes(32).toString("base64url") + "\n");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return readNodeSecret(path);
}

export function readNodeSecret(path: string): Uint8Array {
  assertPrivateMode(path);
  const bytes = Buffer.from(readFileSync(path, "utf8").trim(), "base64url");
  if (bytes.length !== 32) throw new KeyFileError("corrupt", `${path} does not hold a 32-byte secret`);
  return new Uint8Array(bytes);
}
