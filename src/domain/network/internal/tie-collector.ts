import type { EdgeList } from "./adjacency.ts";

/**
 * Pieces of tie evidence (u, v, weight) gathered into growable typed arrays, then summed per
 * unordered pair: two stable counting sorts (by the larger end, then by the smaller) put each
 * pair's pieces together in the order they came, so every sum adds the same numbers in the same
 * order as a running total per pair would, and the pairs come out in (smaller, larger) order. No
 * object, map entry or boxed number per piece.
 */
export class TieCollector {
  private lo = new Int32Array(1024);
  private hi = new Int32Array(1024);
  private w = new Float64Array(1024);
  private m = 0;

  constructor(private readonly n: number) {}

  /** One piece of evidence between u and v; nothing when either is not a contact or u = v. */
  add(u: number | undefined, v: number | undefined, w: number): void {
    if (u === undefined || v === undefined || u === v) return;
    if (this.m === this.lo.length) this.grow();
    this.lo[this.m] = u < v ? u : v;
    this.hi[this.m] = u < v ? v : u;
    this.w[this.m++] = w;
  }

  /** Unique pairs in (a, b) order, a < b, with their summed weight; pairs lighter than `min` dropped. */
  edges(min: number): EdgeList {
    const byHi = countingOrder(this.hi, this.m, this.n, null);
    const order = countingOrder(this.lo, this.m, this.n, byHi);
    const a = new Int32Array(this.m);
    const b = new Int32Array(this.m);
    const w = new Float64Array(this.m);
    let out = 0;
    for (let k = 0; k < this.m; ) {
      const first = order[k]!;
      const u = this.lo[first]!;
      const v = this.hi[first]!;
      let sum = 0;
      for (; k < this.m && this.lo[order[k]!] === u && this.hi[order[k]!] === v; k++) sum += this.w[order[k]!]!;
      if (sum < min) continue;
      a[out] = u;
      b[out] = v;
      w[out++] = sum;
    }
    return { a: a.slice(0, out), b: b.slice(0, out), w: w.slice(0, out) };
  }

  private grow(): void {
    const size = this.lo.length * 2;
    const lo = new Int32Array(size);
    const hi = new Int32Array(size);
    const w = new Float64Array(size);
    lo.set(this.lo);
    hi.set(this.hi);
    w.set(this.w);
    [this.lo, this.hi, this.w] = [lo, hi, w];
  }
}

/** A stable counting sort of the positions `within` (all 0..m-1 when null) by `key` (0..n-1). */
function countingOrder(key: Int32Array, m: number, n: number, within: Int32Array | null): Int32Array {
  const start = new Int32Array(n + 1);
  for (let k = 0; k < m; k++) start[key[k]! + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const out = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    const i = within ? within[k]! : k;
    out[start[key[i]!]!++] = i;
  }
  return out;
}
