// The README's manifest is the one an author copies first: it must pass the node's validator once
// its one placeholder (the key from step 2) is filled in, and nothing else may need editing.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifest } from "../../../src/domain/extensions/internal/manifest.ts";
import { generateKeyPair } from "../src/index.ts";

test("the README's manifest validates", async () => {
  const readme = readFileSync(join(import.meta.dir, "../README.md"), "utf8");
  const block = readme.split("`manifest.json`")[1]!.match(/```json\n([\s\S]*?)```/)![1]!;
  const { publicKeyMultibase } = await generateKeyPair();
  const filled = block.replace("<publicKeyMultibase from step 2>", publicKeyMultibase);
  const manifest = parseManifest(JSON.parse(filled));
  expect(manifest.id).toBe("com.example.keepintouch");
  expect(() => parseManifest(JSON.parse(block))).toThrow();
});
