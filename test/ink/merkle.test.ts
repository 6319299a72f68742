// RFC 6962 consistency proofs: proofs built here by the RFC's own recursive definition (independent
// of the verifier's RFC 9162 walk) verify for every 0 ≤ m ≤ n ≤ 16, and every tamper rejects.
import { describe, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { EMPTY_TREE_ROOT, MAX_CONSISTENCY_PROOF_NODES, verifyConsistencyProof } from "../../src/ink/profiles.ts";
import { rng } from "./helpers.ts";
import { flip, hex, LEAVES, leaf, mth, node, split } from "./merkle-trees.ts";

// RFC 6962 §2.1.2: PROOF(m, D[n]) = SUBPROOF(m, D[n], true).
function subproof(m: number, d: Uint8Array[], complete: boolean): Uint8Array[] {
  if (m === d.length) return complete ? [] : [mth(d)];
  const k = split(d.length);
  if (m <= k) return [...subproof(m, d.slice(0, k), complete), mth(d.slice(k))];
  return [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}
function claim(m: number, n: number) {
  return {
    first: m,
    firstRoot: hex(mth(LEAVES.slice(0, m))),
    second: n,
    secondRoot: hex(mth(LEAVES.slice(0, n))),
    proof: m === 0 ? [] : subproof(m, LEAVES.slice(0, n), true).map(hex),
  };
}
const PAIRS: [number, number][] = [];
for (let n = 1; n <= 16; n++) for (let m = 0; m <= n; m++) PAIRS.push([m, n]);

describe("verifyConsistencyProof on self-built trees", () => {
  test("the test's own tree agrees with the spec constants", () => {
    expect(hex(mth([]))).toBe(EMPTY_TREE_ROOT);
    expect(subproof(4, LEAVES.slice(0, 8), true).length).toBe(1);
  });

  test("every 0 ≤ m ≤ n ≤ 16 verifies", () => {
    for (const [m, n] of PAIRS) expect({ m, n, r: verifyConsistencyProof(claim(m, n)) }).toEqual({ m, n, r: { ok: true } });
  });

  test("flipping any bit-position of any proof node rejects", () => {
    for (const [m, n] of PAIRS) {
      const c = claim(m, n);
      c.proof.forEach((h, i) => {
        for (const at of [0, 31, 63]) {
          const proof = c.proof.map((p, j) => (j === i ? flip(p, at) : p));
          expect({ m, n, i, at, ok: verifyConsistencyProof({ ...c, proof }).ok }).toEqual({ m, n, i, at, ok: false });
        }
      });
    }
  });

  test("a dropped, duplicated, appended or swapped node rejects", () => {
    for (const [m, n] of PAIRS) {
      const c = claim(m, n);
      const variants: string[][] = [[...c.proof, c.firstRoot], [...c.proof, EMPTY_TREE_ROOT]];
      for (let i = 0; i < c.proof.length; i++) {
        variants.push(c.proof.filter((_, j) => j !== i));
        variants.push([...c.proof.slice(0, i + 1), ...c.proof.slice(i)]);
        if (i + 1 < c.proof.length && c.proof[i] !== c.proof[i + 1]) {
          variants.push([...c.proof.slice(0, i), c.proof[i + 1] as string, c.proof[i] as string, ...c.proof.slice(i + 2)]);
        }
      }
      for (const proof of variants) expect({ m, n, proof, ok: verifyConsistencyProof({ ...c, proof }).ok }).toEqual({ m, n, proof, ok: false });
    }
  });

  test("a tampered first or second root rejects", () => {
    for (const [m, n] of PAIRS) {
      const c = claim(m, n);
      for (const at of [0, 63]) {
        expect({ m, n, at, ok: verifyConsistencyProof({ ...c, firstRoot: flip(c.firstRoot, at) }).ok }).toEqual({ m, n, at, ok: false });
        // The empty tree is a prefix of every tree, so with m = 0 the second root is unconstrained.
        const ok = m === 0;
        expect({ m, n, at, ok: verifyConsistencyProof({ ...c, secondRoot: flip(c.secondRoot, at) }).ok }).toEqual({ m, n, at, ok });
      }
      if (m < n) expect(verifyConsistencyProof({ ...c, firstRoot: c.secondRoot }).ok).toBe(false);
    }
  });

  test("a tampered first size rejects; so does first > second", () => {
    for (const [m, n] of PAIRS) {
      const c = claim(m, n);
      for (const first of [m - 1, m + 1, m * 2, 0]) {
        if (first < 0 || first === m) continue;
        expect({ m, n, first, ok: verifyConsistencyProof({ ...c, first }).ok }).toEqual({ m, n, first, ok: false });
      }
    }
    expect(verifyConsistencyProof({ ...claim(8, 8), first: 9 })).toEqual({ ok: false, reason: "first_exceeds_second" });
  });

  // RFC 6962 proofs bind the shape of the path, not the exact second size: a size whose proof has
  // a different shape must reject. (A size with the same path shape can verify against these
  // roots; sizes are bound by the signed checkpoint, as in every RFC 6962 verifier.)
  test("a tampered second size whose proof shape differs rejects", () => {
    let checked = 0;
    for (const [m, n] of PAIRS) {
      const c = claim(m, n);
      for (const second of [n - 1, n + 1, n * 2, n + 7]) {
        if (second < m || second === n || second > 16 || m === 0) continue;
        if (claim(m, second).proof.length === c.proof.length) continue;
        checked++;
        expect({ m, n, second, ok: verifyConsistencyProof({ ...c, second }).ok }).toEqual({ m, n, second, ok: false });
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  test("the edge rules: equal sizes, the empty prefix, the empty tree", () => {
    const eq = claim(5, 5);
    expect(verifyConsistencyProof({ ...eq, proof: [eq.firstRoot] })).toEqual({ ok: false, reason: "proof_length" });
    expect(verifyConsistencyProof({ ...claim(0, 5), proof: [EMPTY_TREE_ROOT] })).toEqual({ ok: false, reason: "proof_length" });
    expect(verifyConsistencyProof({ ...claim(0, 5), firstRoot: claim(1, 5).firstRoot })).toEqual({ ok: false, reason: "first_root_mismatch" });
    const empty = { first: 0, firstRoot: EMPTY_TREE_ROOT, second: 0, secondRoot: EMPTY_TREE_ROOT, proof: [] };
    expect(verifyConsistencyProof(empty)).toEqual({ ok: true });
    expect(verifyConsistencyProof({ ...empty, firstRoot: eq.firstRoot, secondRoot: eq.firstRoot }).ok).toBe(false);
    expect(verifyConsistencyProof({ ...claim(3, 5), proof: [] })).toEqual({ ok: false, reason: "proof_length" });
  });
});

describe("verifyConsistencyProof on hostile input", () => {
  const good = claim(5, 13);

  test("malformed shapes reject as malformed_input", () => {
    const bad: unknown[] = [
      null, undefined, 5, "x", [], {},
      { ...good, first: -1 }, { ...good, first: 1.5 }, { ...good, first: "5" }, { ...good, first: Number.NaN },
      { ...good, second: Number.POSITIVE_INFINITY }, { ...good, second: 2 ** 53 }, { ...good, second: 13n },
      { ...good, firstRoot: good.firstRoot.toUpperCase() }, { ...good, secondRoot: `${good.secondRoot}0` },
      { ...good, secondRoot: good.secondRoot.slice(1) }, { ...good, proof: "nope" }, { ...good, proof: [1] },
      { ...good, proof: [...good.proof.slice(1), ` ${good.proof[0]}`] }, { ...good, proof: new Array(3) },
      { ...good, proof: new Array(MAX_CONSISTENCY_PROOF_NODES + 1).fill(good.firstRoot) },
    ];
    for (const input of bad) expect(verifyConsistencyProof(input)).toEqual({ ok: false, reason: "malformed_input" });
  });

  // With every leaf equal, a subtree's root depends only on its size, so the RFC 6962 definitions
  // run in O(log n) and give real proofs for trees of up to 2^53 − 1 leaves.
  test("proofs in trees up to 2^53 − 1 leaves verify, the longest (54 nodes) included", () => {
    const roots = new Map<number, Uint8Array>([[1, leaf(0)]]);
    const root = (n: number): Uint8Array => {
      const known = roots.get(n);
      if (known !== undefined) return known;
      const k = split(n);
      const r = node(root(k), root(n - k));
      roots.set(n, r);
      return r;
    };
    const proofOf = (m: number, n: number, complete: boolean): Uint8Array[] => {
      if (m === n) return complete ? [] : [root(n)];
      const k = split(n);
      return m <= k ? [...proofOf(m, k, complete), root(n - k)] : [...proofOf(m - k, n - k, false), root(k)];
    };
    const max = Number.MAX_SAFE_INTEGER;
    const pairs = [[8603371283184145, max], [1, max], [max - 1, max], [2 ** 52, max], [2 ** 52 + 1, 2 ** 52 + 3], [12345, 2 ** 40 + 7]];
    let longest = 0;
    for (const [m, n] of pairs as [number, number][]) {
      const c = { first: m, firstRoot: hex(root(m)), second: n, secondRoot: hex(root(n)), proof: proofOf(m, n, true).map(hex) };
      longest = Math.max(longest, c.proof.length);
      expect({ m, n, r: verifyConsistencyProof(c) }).toEqual({ m, n, r: { ok: true } });
      const proof = c.proof.map((p, i) => (i === c.proof.length - 1 ? flip(p, 5) : p));
      expect({ m, n, ok: verifyConsistencyProof({ ...c, proof }).ok }).toEqual({ m, n, ok: false });
      expect({ m, n, ok: verifyConsistencyProof({ ...c, firstRoot: hex(root(m + 1)) }).ok }).toEqual({ m, n, ok: false });
    }
    expect(longest).toBe(54);
  });

  // A walk proportional to the size would not finish before the test's timeout: no clock needed.
  test("sizes at the safe-integer ceiling are walked without rounding and reject", () => {
    const max = Number.MAX_SAFE_INTEGER;
    for (const [first, second] of [[1, max], [max - 1, max], [2 ** 52, max], [max, max], [2 ** 52 + 1, max]]) {
      const r = verifyConsistencyProof({ first, firstRoot: good.firstRoot, second, secondRoot: good.secondRoot, proof: good.proof });
      expect(r.ok).toBe(false);
    }
  });

  test("seeded mutations never throw and never accept a changed proof or root", () => {
    const r = rng(0x6962);
    const pool = PAIRS.filter(([m, n]) => m > 0 && m < n).map(([m, n]) => claim(m, n));
    for (let iter = 0; iter < 3000; iter++) {
      const c = r.pick(pool);
      const proof = [...c.proof];
      let firstRoot = c.firstRoot;
      let secondRoot = c.secondRoot;
      switch (r.int(5)) {
        case 0: proof[r.int(proof.length)] = hex(sha256(new Uint8Array([iter & 255, iter >> 8]))); break;
        case 1: proof.splice(r.int(proof.length + 1), 0, r.pick([...c.proof, c.firstRoot, c.secondRoot])); break;
        case 2: proof.splice(r.int(proof.length), 1 + r.int(2)); break;
        case 3: firstRoot = flip(firstRoot, r.int(64)); break;
        default: secondRoot = flip(secondRoot, r.int(64)); break;
      }
      const sameProof = proof.length === c.proof.length && proof.every((p, i) => p === c.proof[i]);
      const unchanged = sameProof && firstRoot === c.firstRoot && secondRoot === c.secondRoot;
      let result: { ok: boolean } = { ok: false };
      expect(() => {
        result = verifyConsistencyProof({ ...c, proof, firstRoot, secondRoot });
      }).not.toThrow();
      if (!unchanged) expect({ iter, ok: result.ok }).toEqual({ iter, ok: false });
    }
  });
});
