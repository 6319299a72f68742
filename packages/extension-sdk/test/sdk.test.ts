// The SDK's shared cases (cases.ts) under Bun; node.process.test.ts runs the same under Node 20.
import { describe, test } from "bun:test";
import { cases } from "./cases.ts";

describe("@kith/extension-sdk under Bun", () => {
  for (const [name, run] of cases) test(name, run);
});
