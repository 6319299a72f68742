// Verifying the installation's audit chain (GET /ext/v1/audit) on INK's rules (protocol/AUDIT.md
// §2–§3): each entry's chain hash is hex(SHA-256(JCS(entry without agentSignature))); within a
// slice, `sequence` rises by exactly 1 (equal = fork, jump = gap) and each `previousEventHash` is the
// chain hash of the entry before it; sequence 1 has `previousEventHash: null`. With the agent's
// public key(s), each `agentSignature` is checked too: Ed25519 over UTF-8 of
// "ink/audit-event\n" + JCS(entry without agentSignature), base64url.
import { sha256Hex, verifyEd25519 } from "./crypto.ts";
import { decodeEd25519Multibase, fromBase64url, utf8 } from "./encoding.ts";
import { canonicalJson } from "./jcs.ts";

export type ChainFailure = "invalid_input" | "invalid_event" | "sequence_fork" | "sequence_gap" | "previous_hash_mismatch" | "first_event_not_genesis" | "invalid_signature";

export type ChainResult = { ok: true; count: number; lastHash: string | null } | { ok: false; reason: ChainFailure; index: number; message: string };

function unsigned(event: Record<string, unknown>): string | null {
  const { agentSignature: _omit, ...rest } = event;
  try {
    return canonicalJson(rest);
  } catch {
    return null;
  }
}

/** The chain hash of one audit entry (the next entry's `previousEventHash`), or null if malformed. */
export async function auditEventHash(event: unknown): Promise<string | null> {
  if (typeof event !== "object" || event === null || Array.isArray(event)) return null;
  const jcs = unsigned(event as Record<string, unknown>);
  return jcs === null ? null : sha256Hex(jcs);
}

export type VerifyChainOptions = {
  /** Multibase Ed25519 keys of the agent (its Agent Card keys); any one may have signed an entry. */
  publicKeys?: string[];
  /** The chain hash of the entry before `events[0]`, when the slice does not start at sequence 1. */
  previousHash?: string | null;
};

export async function verifyAuditChain(events: unknown, opts: VerifyChainOptions = {}): Promise<ChainResult> {
  const bad = (reason: ChainFailure, index: number, message: string): ChainResult => ({ ok: false, reason, index, message });
  if (!Array.isArray(events)) return bad("invalid_input", -1, "not an array");
  const keys = (opts.publicKeys ?? []).map(decodeEd25519Multibase);
  if (keys.some((k) => k === null)) return bad("invalid_input", -1, "a public key is not a multibase Ed25519 key");
  let prevHash: string | null = opts.previousHash ?? null;
  let prevSeq: number | null = null;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as Record<string, unknown>;
    if (typeof e !== "object" || e === null || Array.isArray(e) || !Number.isSafeInteger(e.sequence) || (e.sequence as number) < 1) return bad("invalid_event", i, "sequence: an integer ≥ 1");
    if (e.previousEventHash !== null && (typeof e.previousEventHash !== "string" || !/^[0-9a-f]{64}$/.test(e.previousEventHash))) return bad("invalid_event", i, "previousEventHash: null or 64 lowercase hex");
    const seq = e.sequence as number;
    if (prevSeq !== null && seq === prevSeq) return bad("sequence_fork", i, `sequence ${seq} appears twice`);
    if (prevSeq !== null && seq !== prevSeq + 1) return bad("sequence_gap", i, `sequence ${seq} follows ${prevSeq}`);
    if (seq === 1 && e.previousEventHash !== null) return bad("first_event_not_genesis", i, "sequence 1 must have previousEventHash null");
    if (seq > 1 && e.previousEventHash === null) return bad("invalid_event", i, "only sequence 1 has previousEventHash null");
    if ((prevSeq !== null || opts.previousHash !== undefined) && e.previousEventHash !== prevHash) return bad("previous_hash_mismatch", i, `entry ${seq} does not link to the entry before it`);
    const jcs = unsigned(e);
    if (jcs === null) return bad("invalid_event", i, "not canonicalisable JSON");
    if (keys.length > 0) {
      const sig = typeof e.agentSignature === "string" ? fromBase64url(e.agentSignature) : null;
      const message = utf8(`ink/audit-event\n${jcs}`);
      let valid = false;
      if (sig !== null) for (const k of keys) if (!valid && (await verifyEd25519(k as Uint8Array, message, sig))) valid = true;
      if (!valid) return bad("invalid_signature", i, `entry ${seq}: agentSignature does not verify under the agent's keys`);
    }
    prevHash = await sha256Hex(jcs);
    prevSeq = seq;
  }
  return { ok: true, count: events.length, lastHash: events.length === 0 ? (opts.previousHash ?? null) : prevHash };
}
