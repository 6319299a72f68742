import { randomBytes } from "node:crypto";
import * as nodeFs from "node:fs";
import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { openWithPassphrase, scryptParamsProblem, sealWithPassphrase, type SealedBox } from "../security/secret-box.ts";
import type { AgentKey, KeyRole } from "../security/agent-keys.ts";
import { publicKeyMatches } from "../security/agent-keys.ts";

/**
 * `agent-key.json`: the only place private keys live. The public half (key ids, roles, public
 * keys) is always readable so `kith keys show` needs no passphrase; the private half is either
 * plain (mode 0600 protects it) or sealed with a passphrase (scrypt + AES-256-GCM, bound to the
 * public half).
 */
export const KEY_FILE_FORMAT = "kith-agent-key/1";

export type KeyFileErrorCode = "missing" | "unreadable" | "exists" | "insecure_mode" | "passphrase_required" | "wrong_passphrase" | "corrupt";

export class KeyFileError extends Error {
  constructor(readonly code: KeyFileErrorCode, message: string) {
    super(message);
    this.name = "KeyFileError";
  }
}

interface PublicEntry {
  keyId: string;
  role: KeyRole;
  algorithm: "Ed25519" | "X25519";
  publicKeyMultibase: string;
  createdAt: string;
}

interface KeyFileJson {
  format: typeof KEY_FILE_FORMAT;
  keys: PublicEntry[];
  secret: { alg: "none"; privateKeys: Record<string, string> } | SealedBox;
}

/**
 * Writes a new key file; refuses to overwrite an existing one (an identity is never replaced
 * silently), also when two processes create it at once: the complete file is linked into place,
 * which fails if the name exists (no check-then-rename window).
 */
export function createKeyFile(path: string, keys: AgentKey[], passphrase: string | null, fs: KeyFileFs = nodeFs): void {
  writeAtomically(fs, path, serialize(keys, passphrase), { exclusive: true });
}

/** The file-system calls that write a key file (a test hands in wrapped ones to interleave a competing creator). */
export type KeyFileFs = Pick<typeof nodeFs, "closeSync" | "constants" | "existsSync" | "fsyncSync" | "linkSync" | "openSync" | "renameSync" | "rmSync" | "writeSync">;

/** Rewrites the key file with one more key (rotation). The old keys stay: retired keys remain verifiable. */
export function appendKey(path: string, key: AgentKey, passphrase: string | null): AgentKey[] {
  const keys = [...readKeyFile(path, passphrase), key];
  writeAtomically(nodeFs, path, serialize(keys, passphrase), { exclusive: false });
  return keys;
}

/** Public entries only; works without the passphrase. */
export function readPublicKeys(path: string): PublicEntry[] {
  return parse(path).keys;
}

export function readKeyFile(path: string, passphrase: string | null): AgentKey[] {
  assertPrivateMode(path);
  const file = parse(path);
  let privateKeys: Record<string, string>;
  if (file.secret.alg === "none") {
    privateKeys = file.secret.privateKeys;
  } else if (file.secret.alg === "scrypt-aes-256-gcm") {
    if (passphrase === null) {
      throw new KeyFileError("passphrase_required", `${path} is encrypted: set KITH_KEY_PASSPHRASE or --passphrase-file`);
    }
    const problem = scryptParamsProblem(file.secret.kdf);
    if (problem) throw new KeyFileError("corrupt", `${path}: ${problem}; this file was not written by kith (restore it from a backup)`);
    const plain = openWithPassphrase(file.secret, passphrase, aadFor(file.keys));
    if (!plain) throw new KeyFileError("wrong_passphrase", `cannot decrypt ${path}: wrong passphrase, or the file was altered`);
    privateKeys = parsePrivate(path, new TextDecoder().decode(plain));
  } else {
    throw new KeyFileError("corrupt", `${path}: unknown secret encoding`);
  }
  return file.keys.map((entry) => {
    const encoded = privateKeys[entry.keyId];
    const privateKey = typeof encoded === "string" ? Buffer.from(encoded, "base64url") : null;
    if (!privateKey || privateKey.length !== 32) throw new KeyFileError("corrupt", `${path}: no private key for ${entry.keyId}`);
    const key: AgentKey = { ...entry, privateKey: new Uint8Array(privateKey) };
    if (!publicKeyMatches(key)) throw new KeyFileError("corrupt", `${path}: private key of ${entry.keyId} does not match its public key`);
    return key;
  });
}

/** Like ssh: a private key readable by group or others is refused, not used. */
export function assertPrivateMode(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    throw new KeyFileError("missing", `${path} does not exist`);
  }
  if ((mode & 0o077) !== 0) {
    const shown = (mode & 0o777).toString(8).padStart(3, "0");
    throw new KeyFileError(
      "insecure_mode",
      `${path} is readable by group or others (mode ${shown}); run: chmod 600 ${path}`,
    );
  }
}

function serialize(keys: AgentKey[], passphrase: string | null): string {
  const publicEntries: PublicEntry[] = keys.map((k) => ({
    keyId: k.keyId,
    role: k.role,
    algorithm: k.algorithm,
    publicKeyMultibase: k.publicKeyMultibase,
    createdAt: k.createdAt,
  }));
  const privateKeys = Object.fromEntries(keys.map((k) => [k.keyId, Buffer.from(k.privateKey).toString("base64url")]));
  const secret: KeyFileJson["secret"] =
    passphrase === null
      ? { alg: "none", privateKeys }
      : sealWithPassphrase(new TextEncoder().encode(JSON.stringify({ privateKeys })), passphrase, aadFor(publicEntries));
  const file: KeyFileJson = { format: KEY_FILE_FORMAT, keys: publicEntries, secret };
  return JSON.stringify(file, null, 2) + "\n";
}

function aadFor(keys: PublicEntry[]): Uint8Array {
  const bound = keys.map((k) => [k.keyId, k.role, k.algorithm, k.publicKeyMultibase, k.createdAt]);
  return new TextEncoder().encode(`${KEY_FILE_FORMAT}\n${JSON.stringify(bound)}`);
}

function parse(path: string): KeyFileJson {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new KeyFileError("missing", `${path} does not exist`);
    throw new KeyFileError("unreadable", `cannot read ${path} (${(e as Error).message}): it must belong to the user running kith`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new KeyFileError("corrupt", `${path} is not valid JSON`);
  }
  if (!isKeyFile(json)) throw new KeyFileError("corrupt", `${path} is not a ${KEY_FILE_FORMAT} key file`);
  return json;
}

function parsePrivate(path: string, text: string): Record<string, string> {
  try {
    const value = JSON.parse(text) as { privateKeys?: unknown };
    if (value.privateKeys && typeof value.privateKeys === "object") return value.privateKeys as Record<string, string>;
  } catch {
    // fall through
  }
  throw new KeyFileError("corrupt", `${path}: decrypted key material is malformed`);
}

function isKeyFile(v: unknown): v is KeyFileJson {
  if (!v || typeof v !== "object") return false;
  const f = v as Partial<KeyFileJson>;
  return (
    f.format === KEY_FILE_FORMAT &&
    Array.isArray(f.keys) &&
    f.keys.every(
      (k) =>
        k && typeof k.keyId === "string" && (k.role === "signing" || k.role === "encryption") &&
        (k.algorithm === "Ed25519" || k.algorithm === "X25519") && typeof k.publicKeyMultibase === "string" &&
        typeof k.createdAt === "string",
    ) &&
    !!f.secret && typeof f.secret === "object" && typeof (f.secret as { alg?: unknown }).alg === "string"
  );
}

/**
 * temp file (0600) + fsync + rename (or, exclusive, link: atomic and failing with EEXIST) +
 * fsync(dir): a crash leaves either the old file or the new one, never a partial one.
 */
function writeAtomically(fs: KeyFileFs, path: string, content: string, options: { exclusive: boolean }): void {
  const tmp = `${path}.tmp-${randomBytes(6).toString("hex")}`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    if (options.exclusive) linkExclusive(fs, tmp, path, content);
    else fs.renameSync(tmp, path);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const dirFd = fs.openSync(dirname(path), fs.constants.O_RDONLY);
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}

function linkExclusive(fs: KeyFileFs, tmp: string, path: string, content: string): void {
  try {
    fs.linkSync(tmp, path);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new KeyFileError("exists", `${path} already exists; refusing to overwrite an agent identity`);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw e;
  }
  // No hard links on this file system (FAT, exFAT): O_EXCL on the name itself is still exclusive.
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new KeyFileError("exists", `${path} already exists; refusing to overwrite an agent identity`);
    throw e;
  }
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
