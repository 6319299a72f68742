import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SETTINGS } from "../src/config.ts";
import { ROOT } from "./helpers/process.ts";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");

test("the README's configuration table lists every setting with its flag and default", () => {
  const table = readme.split("<!-- settings-table:start -->")[1]!.split("<!-- settings-table:end -->")[0]!;
  const rows = table.split("\n").filter((l) => l.startsWith("| `KITH_"));
  expect(rows).toHaveLength(SETTINGS.length);
  for (const s of SETTINGS) {
    const row = rows.find((r) => r.startsWith(`| \`${s.env}\` |`));
    expect(row).toBeDefined();
    if (s.flag) expect(row).toContain(`\`--${s.flag}\``);
    expect(row).toContain(s.stored ? "| yes |" : "| no |");
    expect(row!.replace(/`/g, "")).toContain(s.default.replace(/[()]/g, ""));
  }
});

test("the README opens with what Kith is, then exactly two commands: start and test", () => {
  const firstBlock = readme.match(/```sh\n([\s\S]*?)```/)![1]!;
  const commands = firstBlock.trim().split("\n").map((l) => l.replace(/\s+#.*$/, "").trim());
  expect(commands).toEqual(["npm install && npm start", "npm install && npm test"]);
  expect(readme.indexOf("self-hosted")).toBeLessThan(readme.indexOf("```sh"));
  const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
  expect(ci).toContain("npm install && npm test");
});
