/**
 * Reproducible pseudo-random bytes (xorshift32) for property tests over many inputs: a failure
 * names an input that the same seed gives again. Not for anything secret.
 */
export function seededBytes(seed: number): { bytes(n: number): Uint8Array; below(n: number): number } {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return { bytes: (n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)), below: (n) => Math.floor(next() * n) };
}
