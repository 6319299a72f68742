import { createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import { encodeEd25519PublicKey, encodeX25519PublicKey } from "../ink/index.ts";

export type KeyRole = "signing" | "encryption";

/** One key the agent holds: Ed25519 for signing, X25519 for sealed envelopes (INK §2.3 roles). */
export interface AgentKey {
  keyId: string;
  role: KeyRole;
  algorithm: "Ed25519" | "X25519";
  publicKeyMultibase: string;
  /** RFC 3339, when the key was made. */
  createdAt: string;
  /** 32-byte Ed25519 seed or X25519 scalar. Never logged, never stored outside agent-key.json. */
  privateKey: Uint8Array;
}

// RFC 8410 PKCS#8 prefixes for a raw 32-byte Ed25519 seed / X25519 scalar. Native key handling
// (BoringSSL) instead of noble here: noble precomputes base-point tables on first use, which
// costs ~40 ms and ~20 MB at every start just to check the key file.
const PKCS8_PREFIX: Record<KeyRole, Buffer> = {
  signing: Buffer.from("302e020100300506032b657004220420", "hex"),
  encryption: Buffer.from("302e020100300506032b656e04220420", "hex"),
};

export function generateAgentKey(role: KeyRole, keyId: string, createdAtMs: number): AgentKey {
  // Any 32 random bytes are a valid Ed25519 seed and a valid X25519 scalar (clamped at use).
  return agentKeyFromPrivate(role, keyId, createdAtMs, new Uint8Array(randomBytes(32)));
}

/** Builds a key record from existing private material (fixed test personas, restores). */
export function agentKeyFromPrivate(role: KeyRole, keyId: string, createdAtMs: number, privateKey: Uint8Array): AgentKey {
  const publicKey = publicKeyOf({ role, privateKey });
  return {
    keyId,
    role,
    algorithm: role === "signing" ? "Ed25519" : "X25519",
    createdAt: new Date(createdAtMs).toISOString(),
    privateKey,
    publicKeyMultibase: role === "signing" ? encodeEd25519PublicKey(publicKey) : encodeX25519PublicKey(publicKey),
  };
}

export function publicKeyOf(key: Pick<AgentKey, "role" | "privateKey">): Uint8Array {
  if (key.privateKey.length !== 32) throw new Error("private key must be 32 bytes");
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX[key.role], key.privateKey]), format: "der", type: "pkcs8" });
  const jwk = createPublicKey(privateKey).export({ format: "jwk" }) as { x?: string };
  return new Uint8Array(Buffer.from(jwk.x ?? "", "base64url"));
}

/** True when the private key really produces the recorded public key (catches a corrupted file). */
export function publicKeyMatches(key: AgentKey): boolean {
  try {
    const pub = publicKeyOf(key);
    const encoded = key.role === "signing" ? encodeEd25519PublicKey(pub) : encodeX25519PublicKey(pub);
    return encoded === key.publicKeyMultibase;
  } catch {
    return false;
  }
}

/** Key ids like `sig-20261121-3f9a1c`: readable, sortable by day, unique, and inside INK's header keyId grammar. */
export function newKeyId(role: KeyRole, nowMs: number): string {
  const day = new Date(nowMs).toISOString().slice(0, 10).replace(/-/g, "");
  return `${role === "signing" ? "sig" : "enc"}-${day}-${randomBytes(3).toString("hex")}`;
}
