// Witness checkpoint bodies: parse → format is byte-exact, each grammar rule rejects with its
// reason, and seeded mutations never throw and never accept a non-canonical body.
import { describe, expect, test } from "bun:test";
import { type CheckpointFailure, EMPTY_TREE_ROOT, formatCheckpoint, MAX_CHECKPOINT_BODY, MAX_CHECKPOINT_ORIGIN, parseCheckpoint } from "../../src/ink/profiles.ts";
import { rng } from "./helpers.ts";

const ROOT = "6b7afabb949cf3b283bb350a4dacecdc109cf7dcd3824156511958cddfb61271";
const body = (origin: string, size: string, root = ROOT) => `${origin}\n${size}\n${root}\n`;

describe("parseCheckpoint / formatCheckpoint", () => {
  test("parse then format reproduces the body byte for byte", () => {
    const bodies = [
      body("example.com/ink-log", "5"),
      body("witness.example/log/v1", "0", EMPTY_TREE_ROOT),
      body("a", "9007199254740991"),
      body("é".repeat(MAX_CHECKPOINT_ORIGIN), "1"),
      body("日本.example/ログ", "42"),
      body("𝐀".repeat(MAX_CHECKPOINT_ORIGIN / 2), "7"),
      body("log.example/~!@#$%^&*()_=-[]{}|;:'\",.<>?/`", "10"),
    ];
    for (const b of bodies) {
      const r = parseCheckpoint(b);
      if (!r.ok) throw new Error(`${JSON.stringify(b)}: ${r.reason}`);
      expect(formatCheckpoint(r.checkpoint)).toBe(b);
    }
    expect(parseCheckpoint(body("log.example", "12"))).toEqual({ ok: true, checkpoint: { origin: "log.example", treeSize: 12, rootHash: ROOT } });
  });

  test("format then parse returns the same fields", () => {
    const r = rng(0xc2);
    for (let i = 0; i < 300; i++) {
      const origin = Array.from({ length: 1 + r.int(40) }, () => r.pick(["a", "z", "0", ".", "/", "-", "é", "ß", "中", "😀", "_"])).join("");
      const treeSize = r.pick([0, 1, r.int(1000), r.int(2 ** 31), Number.MAX_SAFE_INTEGER - r.int(10)]);
      const rootHash = Array.from({ length: 64 }, () => "0123456789abcdef"[r.int(16)]).join("");
      const text = formatCheckpoint({ origin, treeSize, rootHash });
      expect(text).not.toBeNull();
      expect(parseCheckpoint(text)).toEqual({ ok: true, checkpoint: { origin, treeSize, rootHash } });
    }
  });

  test("each rule rejects with its reason", () => {
    const cases: [unknown, CheckpointFailure][] = [
      [undefined, "malformed_checkpoint"],
      [42, "malformed_checkpoint"],
      [{ body: body("a", "1") }, "malformed_checkpoint"],
      ["", "malformed_checkpoint"],
      [body("a", "1").slice(0, -1), "malformed_checkpoint"],
      [`${body("a", "1")}ext=1\n`, "malformed_checkpoint"],
      [`${body("a", "1")}\n— a sig\n`, "malformed_checkpoint"],
      [body("a", "1").replaceAll("\n", "\r\n"), "invalid_origin"],
      ["x".repeat(MAX_CHECKPOINT_BODY + 1), "checkpoint_too_large"],
      [body("x".repeat(MAX_CHECKPOINT_ORIGIN + 1), "1"), "invalid_origin"],
      [body("a\tb", "1"), "invalid_origin"],
      [body("a\u2009b", "1"), "invalid_origin"],
      [body("a\u0000b", "1"), "invalid_origin"],
      [body("a\ud800b", "1"), "invalid_origin"],
      [body("a\udc00", "1"), "invalid_origin"],
      [body("\ud83d", "1"), "invalid_origin"],
      [body("a", ""), "invalid_tree_size"],
      [body("a", " 1"), "invalid_tree_size"],
      [body("a", "1.0"), "invalid_tree_size"],
      [body("a", "1e3"), "invalid_tree_size"],
      [body("a", "0x10"), "invalid_tree_size"],
      [body("a", "00"), "invalid_tree_size"],
      [body("a", "١"), "invalid_tree_size"],
      [body("a", "99999999999999999"), "invalid_tree_size"],
      [body("a", "1", ""), "invalid_root_hash"],
      [body("a", "1", Buffer.from(ROOT, "hex").toString("base64")), "invalid_root_hash"],
    ];
    for (const [input, reason] of cases) expect({ input, r: parseCheckpoint(input) }).toEqual({ input, r: { ok: false, reason } });
  });

  test("formatCheckpoint refuses what parseCheckpoint would reject", () => {
    const bad: unknown[] = [
      null,
      { origin: "", treeSize: 1, rootHash: ROOT },
      { origin: "a b", treeSize: 1, rootHash: ROOT },
      { origin: "a\nb", treeSize: 1, rootHash: ROOT },
      { origin: "a", treeSize: -1, rootHash: ROOT },
      { origin: "a", treeSize: 1.5, rootHash: ROOT },
      { origin: "a", treeSize: 2 ** 53, rootHash: ROOT },
      { origin: "a", treeSize: 1, rootHash: ROOT.toUpperCase() },
    ];
    for (const c of bad) expect(formatCheckpoint(c as never)).toBeNull();
  });

  test("seeded mutations never throw, and anything accepted is its own canonical form", () => {
    const r = rng(0x7c9);
    const pieces = ["\n", "\r", " ", "+", "-", "0", "9", "a", "F", "\u00a0", "\u0085", "\u2028", "\u3000", "\u007f", "\ud800", "\udc00", "😀", "é", "\t", ""];
    const seeds = [body("example.com/ink-log", "5"), body("a", "0", EMPTY_TREE_ROOT), body("log", "9007199254740991")];
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      let t = r.pick(seeds);
      for (let n = 1 + r.int(3); n > 0; n--) {
        const at = r.int(t.length + 1);
        if (r.int(2) === 0) t = t.slice(0, at) + r.pick(pieces) + t.slice(at);
        else t = t.slice(0, at) + t.slice(at + 1 + r.int(3));
      }
      let result: ReturnType<typeof parseCheckpoint> | undefined;
      expect(() => {
        result = parseCheckpoint(t);
      }).not.toThrow();
      if (result?.ok) {
        accepted++;
        expect(formatCheckpoint(result.checkpoint)).toBe(t);
        // Independent oracle: three lines, no whitespace/control/plus in the origin, canonical size, hex root.
        expect(/^[^\s\p{Cc}+]{1,256}\n(0|[1-9][0-9]*)\n[0-9a-f]{64}\n$/u.test(t)).toBe(true);
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });

  // The reason is the size cap's, which is checked before the body is split into lines.
  test("a hostile megabyte body is refused before splitting", () => {
    expect(parseCheckpoint("\n".repeat(1 << 20))).toEqual({ ok: false, reason: "checkpoint_too_large" });
  });
});
