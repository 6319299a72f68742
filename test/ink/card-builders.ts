// Card-proof test fixtures shared by the card-signature and card-trust tests: fixed keys, a
// schema-valid key-set card builder, rotation links, and the story G (v1) → K1 (v2) → K2 (v3).
import {
  deriveAgentId,
  encodeEd25519PublicKey,
  generateEd25519KeyPair,
  signAgentCard,
  signRotationLink,
  verifyAgentCardProof,
  type Ed25519KeyPair,
  type RotationLink,
  type RotationLinkKey,
} from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";

export const key = (n: number) => generateEd25519KeyPair(new Uint8Array(32).fill(n));
export const G = key(0x10); // genesis
export const K1 = key(0x11);
export const K2 = key(0x12);
export const M = key(0x66); // mallory
export const M2 = key(0x67);
export const ID = deriveAgentId(G.publicKey, "tulpa");
export const mb = (k: Ed25519KeyPair) => encodeEd25519PublicKey(k.publicKey);
export type Status = RotationLinkKey["status"];
export type Card = Record<string, unknown> & { keys?: { signing: Array<Record<string, unknown>>; encryption: unknown[] } };

/** A schema-valid key-set card with the given signing set (keyId → key, status) and version. */
export function card(set: Array<[string, Ed25519KeyPair, Status]>, version: number, current: string, extra: Record<string, unknown> = {}): Card {
  const active = set.find(([id]) => id === current)?.[1] ?? G;
  return {
    protocol: "ink/0.1",
    agentId: ID,
    handle: "gina",
    displayName: "Gina",
    endpoint: `https://gina.example/ink/v1/${ID}/intent`,
    publicKeyMultibase: mb(active),
    capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] },
    availability: { timezone: "UTC" },
    keys: {
      signing: set.map(([keyId, k, status]) => ({ keyId, algorithm: "Ed25519", publicKeyMultibase: mb(k), status, validFrom: "2026-01-01T00:00:00.000Z" })),
      encryption: [],
    },
    currentSigningKeyId: current,
    keySetVersion: version,
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

export function link(version: number, set: Array<[string, Ed25519KeyPair, Status]>, prevKeyId: string | null, signer: Ed25519KeyPair): RotationLink {
  const signed = signRotationLink({ keySetVersion: version, signing: set.map(([keyId, k, status]) => ({ keyId, publicKeyMultibase: mb(k), status })), prevKeyId }, signer.secretKey);
  if (!signed.ok) throw new Error(signed.reason);
  return signed.link;
}

export function sign(c: Card, signer: Ed25519KeyPair, keyId?: string): Card {
  const s = signAgentCard(c, signer.secretKey, keyId ?? (c.currentSigningKeyId as string));
  if (!s.ok) throw new Error(s.reason);
  return s.card;
}

export const verify = (c: unknown, didWebKeys?: Uint8Array[] | null) => verifyAgentCardProof(c, { verifier: nativeStrictVerifier, ...(didWebKeys !== undefined ? { didWebKeys } : {}) });

// The story: genesis G (v1), rotation to K1 (v2, link signed by G), rotation to K2 (v3, by K1).
export const SET1: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "active"]];
export const SET2: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-1", K1, "active"]];
export const SET3: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-1", K1, "retired"], ["sig-2", K2, "active"]];
export const L2 = link(2, SET2, "sig-0", G);
export const L3 = link(3, SET3, "sig-1", K1);
export const V1 = sign(card(SET1, 1, "sig-0"), G);
export const V2 = sign(card(SET2, 2, "sig-1", { rotationChain: [L2] }), K1);
export const V3 = sign(card(SET3, 3, "sig-2", { rotationChain: [L2, L3] }), K2);
