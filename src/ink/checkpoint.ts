// Witness checkpoint body (AUDIT.md §6, C2SP tlog-checkpoint as INK pins it; see
// docs/decisions/ink-merkle-witness.md): exactly three newline-terminated lines
//   <origin>\n<tree size, decimal>\n<root hash, 64 lowercase hex>\n
// Every accepted body is already canonical, so parse → format is byte-exact.
import { isHash, isTreeSize } from "./merkle.ts";

/** Cap on the whole body (UTF-16 code units), applied before it is split. */
export const MAX_CHECKPOINT_BODY = 1024;
/** Cap on the origin line (UTF-16 code units, not bytes, not code points). */
export const MAX_CHECKPOINT_ORIGIN = 256;

/**
 * Parse a checkpoint body. Anything that is not the one canonical spelling rejects: no leading
 * zeros or signs, no CR, no missing/extra newline, no extension lines. Never throws.
 */
export function parseCheckpoint(body: unknown): CheckpointResult {
  if (typeof body !== "string") return { ok: false, reason: "malformed_checkpoint" };
  if (body.length > MAX_CHECKPOINT_BODY) return { ok: false, reason: "checkpoint_too_large" };
  const lines = body.split("\n");
  // Three lines plus the empty remainder after the final newline.
  if (lines.length !== 4 || lines[3] !== "") return { ok: false, reason: "malformed_checkpoint" };
  const [origin, size, rootHash] = lines as [string, string, string];
  if (!isOrigin(origin)) return { ok: false, reason: "invalid_origin" };
  const treeSize = parseTreeSize(size);
  if (treeSize === null) return { ok: false, reason: "invalid_tree_size" };
  if (!isHash(rootHash)) return { ok: false, reason: "invalid_root_hash" };
  return { ok: true, checkpoint: { origin, treeSize, rootHash } };
}

/** The canonical body of a checkpoint, or null when a field breaks the grammar `parseCheckpoint` enforces. */
export function formatCheckpoint(checkpoint: Checkpoint): string | null {
  if (typeof checkpoint !== "object" || checkpoint === null) return null;
  const { origin, treeSize, rootHash } = checkpoint;
  if (!isOrigin(origin) || !isTreeSize(treeSize) || !isHash(rootHash)) return null;
  return `${origin}\n${treeSize}\n${rootHash}\n`;
}

// The origin is the log's domain separator and the first token of a `— <origin> <sig>` line, so
// no space of any kind (Unicode White_Space), no `+` (C2SP), no C0/C1 control or DEL, and
// well-formed UTF-16 (a lone surrogate has no UTF-8 encoding to sign).
const ORIGIN_FORBIDDEN = /[\p{White_Space}\p{Cc}+]/u;

function isOrigin(origin: unknown): origin is string {
  return (
    typeof origin === "string" &&
    origin.length > 0 &&
    origin.length <= MAX_CHECKPOINT_ORIGIN &&
    !ORIGIN_FORBIDDEN.test(origin) &&
    !hasLoneSurrogate(origin)
  );
}

function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

// ASCII decimal, no sign, no leading zero, ≤ 2^53 − 1 (at most 16 digits before converting).
function parseTreeSize(text: string): number | null {
  if (!/^(?:0|[1-9][0-9]{0,15})$/.test(text)) return null;
  const n = Number(text);
  return isTreeSize(n) ? n : null;
}

export type Checkpoint = { origin: string; treeSize: number; rootHash: string };

export type CheckpointFailure =
  | "malformed_checkpoint"
  | "checkpoint_too_large"
  | "invalid_origin"
  | "invalid_tree_size"
  | "invalid_root_hash";

export type CheckpointResult = { ok: true; checkpoint: Checkpoint } | { ok: false; reason: CheckpointFailure };
