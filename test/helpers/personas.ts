import { sha256 } from "@noble/hashes/sha2.js";
import { agentKeyFromPrivate, type AgentKey, type KeyRole } from "../../src/security/agent-keys.ts";

/**
 * Fixed personas with fixed keys, derived from their names so every run signs the same bytes:
 * alice is the node owner's agent, bob and carol are remote agents, acme is an extension.
 */
export type PersonaName = "alice" | "bob" | "carol" | "acme";

export function seed(name: string, purpose: string, generation = 0): Uint8Array {
  return sha256(new TextEncoder().encode(`kith-test/${name}/${purpose}/${generation}`));
}

export function personaKey(name: PersonaName, role: KeyRole, generation = 0, createdAtMs = Date.parse("2026-01-01T00:00:00.000Z")): AgentKey {
  const keyId = `${role === "signing" ? "sig" : "enc"}-${name}-${generation}`;
  return agentKeyFromPrivate(role, keyId, createdAtMs, seed(name, role, generation));
}

/** A `generateKey` for createAgent/rotateSigningKey that hands out a persona's keys in order. */
export function personaKeyGenerator(name: PersonaName) {
  const generations: Record<KeyRole, number> = { signing: 0, encryption: 0 };
  return (role: KeyRole, _keyId: string, nowMs: number): AgentKey => personaKey(name, role, generations[role]++, nowMs);
}
