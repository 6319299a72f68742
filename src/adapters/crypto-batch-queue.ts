// The calls a crypto batcher has flushed and no worker has taken yet (crypto-batch.ts;
// docs/decisions/extensions.md §15): whole turns' batches, oldest first, from which each message
// to a worker takes up to n calls, splitting a batch where n ends (its verifies before its signs).
import type { VerifyCall } from "../security/preverify.ts";
import type { SignCall } from "./crypto-batch-pack.ts";

/** A turn's calls. */
export interface Calls {
  verifies: VerifyCall[];
  signs: SignCall[];
}
/** A run of one batch's calls: verifies [v0, v1) and signs [s0, s1). */
export interface Piece<B extends Calls> {
  batch: B;
  v0: number;
  v1: number;
  s0: number;
  s1: number;
}

export const callsIn = (p: Piece<Calls>) => p.v1 - p.v0 + (p.s1 - p.s0);

export function callQueue<B extends Calls>() {
  const pieces: Array<Piece<B>> = [];
  let calls = 0;
  return {
    /** Calls waiting. */
    get calls() {
      return calls;
    },
    push(piece: Piece<B>) {
      pieces.push(piece);
      calls += callsIn(piece);
    },
    /** Takes up to `n` calls off the head, oldest batch first. */
    take(n: number): Array<Piece<B>> {
      const taken: Array<Piece<B>> = [];
      while (n > 0 && pieces.length > 0) {
        const head = pieces[0]!;
        const verifies = head.v1 - head.v0;
        const piece = { ...head };
        if (callsIn(head) <= n) pieces.shift();
        else if (verifies >= n) {
          piece.v1 = head.v0 + n;
          piece.s1 = piece.s0; // no signs in this piece
          head.v0 = piece.v1;
        } else {
          piece.s1 = head.s0 + (n - verifies);
          head.v0 = head.v1;
          head.s0 = piece.s1;
        }
        n -= callsIn(piece);
        calls -= callsIn(piece);
        taken.push(piece);
      }
      return taken;
    },
  };
}
