/**
 * Kith's INK core, optional profiles: what a node needs only for a capability it advertises
 * (docs/decisions/ink-profiles.md). Same rules as `index.ts`: pure functions, no clock reads, no
 * I/O; time, keys, replay and revocation state are parameters; results are discriminated unions
 * whose reasons are INK's codes. The base protocol is `./index.ts`.
 */

// ── Containment ──────────────────────────────────────────────────────────────────────────────
/**
 * A delivered challenge / rejection / resolution: schema, then the transport signature (H5, H6).
 * @example verifySignedHandshake({ signInput, signature, publicKey }, "tulpa") // { ok: true, kind: "challenge", message }
 */
export { type SignedHandshakeResult, verifySignedHandshake } from "./handshake.ts";
