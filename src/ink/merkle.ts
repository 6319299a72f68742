// RFC 6962 Merkle tree proofs for witness logs (AUDIT.md §6, audit and witness profiles):
// consistency between two tree heads, inclusion of a leaf, and the later-checkpoint cross-check.
//   leaf  = SHA-256(0x00 ‖ data)          (auditLeafHash in audit.ts)
//   node  = SHA-256(0x01 ‖ left ‖ right)
//   empty = SHA-256("")
// Verification follows RFC 9162 §2.1.4.2 (the RFC 6962bis restatement of the RFC 6962 §2.1.2
// proof), plus the edge cases the conformance vectors pin (equal sizes, empty prefix).
import { sha256 } from "@noble/hashes/sha2.js";
import { fromHex, toHex } from "./bytes.ts";

/** Root of the empty tree: SHA-256 of no bytes (AUDIT §6). */
export const EMPTY_TREE_ROOT = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * Longest proof we look at. A consistency proof between trees below 2^53 leaves has at most
 * ⌈log2 n⌉ + 1 ≤ 54 nodes; anything longer is refused before a single hash is computed.
 */
export const MAX_CONSISTENCY_PROOF_NODES = 64;

/**
 * Does the tree of `first` leaves with root `firstRoot` form an append-only prefix of the tree of
 * `second` leaves with root `secondRoot`? Sizes are safe non-negative integers, roots and proof
 * nodes 64 lowercase hex. Never throws; bad input is a reject with a reason.
 */
export function verifyConsistencyProof(input: ConsistencyInput | unknown): ConsistencyResult {
  const shape = parseInput(input);
  if (typeof shape === "string") return { ok: false, reason: shape };
  const { first, second, firstRoot, secondRoot, proof } = shape;
  if (first > second) return { ok: false, reason: "first_exceeds_second" };
  // The empty tree has one root; the vectors hold `first = 0` to it (empty-prefix-wrong-root).
  if (first === 0 && firstRoot !== EMPTY_TREE_ROOT) return { ok: false, reason: "first_root_mismatch" };
  if (second === 0 && secondRoot !== EMPTY_TREE_ROOT) return { ok: false, reason: "second_root_mismatch" };
  if (first === second) {
    if (proof.length !== 0) return { ok: false, reason: "proof_length" };
    return firstRoot === secondRoot ? { ok: true } : { ok: false, reason: "second_root_mismatch" };
  }
  // Every tree extends the empty one; RFC 6962 defines no proof for m = 0, so it must be empty.
  if (first === 0) return proof.length === 0 ? { ok: true } : { ok: false, reason: "proof_length" };
  return walk(first, second, firstRoot, secondRoot, proof);
}

/**
 * Does `proof` walk the leaf hash at `leafIndex` up to `rootHash` in a tree of `treeSize` leaves?
 * INK lists the siblings top-down (root side first: the `inclusion-receipt` and
 * `audit-query-response` vectors verify only so), the reverse of RFC 9162's `inclusion_path`; the
 * walk itself is RFC 9162 §2.1.3.2 over the reversed list. Sizes exact below 2^53; ≤ 64 nodes.
 */
export function verifyInclusionProof(input: InclusionInput | unknown): InclusionResult {
  if (typeof input !== "object" || input === null) return { ok: false, reason: "malformed_input" };
  const { leafHash, leafIndex, treeSize, rootHash, proof } = input as Record<string, unknown>;
  if (!isHash(leafHash) || !isHash(rootHash) || !isTreeSize(leafIndex) || !isTreeSize(treeSize)) return { ok: false, reason: "malformed_input" };
  if (!isHashList(proof)) return { ok: false, reason: "malformed_input" };
  if (leafIndex >= treeSize) return { ok: false, reason: "leaf_index_out_of_range" };
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = fromHex(leafHash) as Uint8Array;
  for (const p of [...proof].reverse()) {
    if (sn === 0) return { ok: false, reason: "proof_length" };
    const node = fromHex(p as string) as Uint8Array;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(node, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      r = nodeHash(r, node);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  if (sn !== 0) return { ok: false, reason: "proof_length" };
  return toHex(r) === rootHash ? { ok: true } : { ok: false, reason: "root_mismatch" };
}

/**
 * Anti-rollback against a later checkpoint of the same log (AUDIT §6): a smaller tree means the
 * log was rewound, the same size with another root is a fork; a larger tree is consistent (it only
 * grew; proving the prefix needs a consistency proof, which the caller may add). Null when consistent.
 */
export function checkLaterCheckpoint(treeSize: number, rootHash: string, later: unknown): "invalid_checkpoint" | "checkpoint_rollback" | "checkpoint_fork" | null {
  if (typeof later !== "object" || later === null) return "invalid_checkpoint";
  const { treeSize: size, rootHash: root } = later as Record<string, unknown>;
  if (!isTreeSize(size) || !isHash(root)) return "invalid_checkpoint";
  if (size < treeSize) return "checkpoint_rollback";
  if (size === treeSize && root !== rootHash) return "checkpoint_fork";
  return null;
}

/** 64 lowercase hex characters: the only spelling of a hash the witness profile accepts. */
export function isHash(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

/** A proof: an array of at most 64 hashes (holes count as malformed, so `every` alone will not do). */
export function isHashList(value: unknown): value is string[] {
  return Array.isArray(value) && value.length <= MAX_CONSISTENCY_PROOF_NODES && Array.from(value).every(isHash);
}

/** A tree size: a safe non-negative integer (2^53 and above are refused, never rounded). */
export function isTreeSize(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

// RFC 9162 §2.1.4.2 steps 1–7, with sizes as plain numbers: below 2^53, `% 2` and `/ 2` are exact
// where 32-bit bit operators are not.
function walk(first: number, second: number, firstRoot: string, secondRoot: string, proof: string[]): ConsistencyResult {
  if (proof.length === 0) return { ok: false, reason: "proof_length" };
  const nodes = proof.map((h) => fromHex(h) as Uint8Array);
  if (isPowerOfTwo(first)) nodes.unshift(fromHex(firstRoot) as Uint8Array);
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) [fn, sn] = [half(fn), half(sn)];
  let fr = nodes[0] as Uint8Array;
  let sr = fr;
  for (let i = 1; i < nodes.length; i++) {
    const c = nodes[i] as Uint8Array;
    if (sn === 0) return { ok: false, reason: "proof_length" };
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  if (sn !== 0) return { ok: false, reason: "proof_length" };
  if (toHex(fr) !== firstRoot) return { ok: false, reason: "first_root_mismatch" };
  if (toHex(sr) !== secondRoot) return { ok: false, reason: "second_root_mismatch" };
  return { ok: true };
}

function parseInput(input: unknown): (Omit<ConsistencyInput, "proof"> & { proof: string[] }) | ConsistencyFailure {
  if (typeof input !== "object" || input === null) return "malformed_input";
  const { first, second, firstRoot, secondRoot, proof } = input as Record<string, unknown>;
  if (!isTreeSize(first) || !isTreeSize(second)) return "malformed_input";
  if (!isHash(firstRoot) || !isHash(secondRoot)) return "malformed_input";
  if (!isHashList(proof)) return "malformed_input";
  return { first, second, firstRoot, secondRoot, proof: proof.slice() as string[] };
}

function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = 0x01;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha256(buf);
}

const half = (n: number): number => Math.floor(n / 2);

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}

export type ConsistencyInput = {
  first: number;
  firstRoot: string;
  second: number;
  secondRoot: string;
  proof: readonly string[];
};

export type ConsistencyFailure =
  | "malformed_input"
  | "first_exceeds_second"
  | "proof_length"
  | "first_root_mismatch"
  | "second_root_mismatch";

export type ConsistencyResult = { ok: true } | { ok: false; reason: ConsistencyFailure };

export type InclusionInput = { leafHash: string; leafIndex: number; treeSize: number; rootHash: string; proof: readonly string[] };

export type InclusionResult = { ok: true } | { ok: false; reason: "malformed_input" | "leaf_index_out_of_range" | "proof_length" | "root_mismatch" };
