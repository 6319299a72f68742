import * as ed from "@noble/ed25519";
import { x25519 } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { encodeEd25519PublicKey, encodeX25519PublicKey } from "../ink/index.ts";

// noble's synchronous API needs a SHA-512; the async one would use WebCrypto.
ed.hashes.sha512 = sha512;

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

export function generateAgentKey(role: KeyRole, keyId: string, createdAtMs: number): AgentKey {
  const createdAt = new Date(createdAtMs).toISOString();
  if (role === "signing") {
    const privateKey = ed.utils.randomSecretKey();
    return { keyId, role, algorithm: "Ed25519", createdAt, privateKey, publicKeyMultibase: encodeEd25519PublicKey(ed.getPublicKey(privateKey)) };
  }
  const privateKey = x25519.utils.randomSecretKey();
  return { keyId, role, algorithm: "X25519", createdAt, privateKey, publicKeyMultibase: encodeX25519PublicKey(x25519.getPublicKey(privateKey)) };
}

export function publicKeyOf(key: Pick<AgentKey, "role" | "privateKey">): Uint8Array {
  return key.role === "signing" ? ed.getPublicKey(key.privateKey) : x25519.getPublicKey(key.privateKey);
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
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${role === "signing" ? "sig" : "enc"}-${day}-${suffix}`;
}
