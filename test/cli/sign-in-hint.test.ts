import { describe, expect, test } from "bun:test";
import { cliName } from "../../src/cli/command.ts";
import { ownerSignInHint } from "../../src/cli/sign-in.ts";

// The banner's commands must be ones the reader can run: a checkout has no `kith` (nor `bun`) on
// PATH, only npm; the compiled binary is the name it was started as.
describe("the commands the CLI prints for the owner", () => {
  test("a checkout prints npm run kith --, the compiled binary prints kith", () => {
    expect(cliName("file:///home/me/kith/src/cli/command.ts")).toBe("npm run kith --");
    expect(cliName("file:///$bunfs/root/kith-linux-x64", "kith")).toBe("kith");
    // started by its path: the banner names that path, which works where `kith` is not on PATH
    expect(cliName("file:///$bunfs/root/kith-linux-x64", "./kith-linux-arm64")).toBe("./kith-linux-arm64");
    expect(cliName("file:///$bunfs/root/kith-linux-x64", "")).toBe("kith");
    expect(cliName()).toBe("npm run kith --"); // these tests run from the checkout
  });

  test("every owner code line of the hint uses that name", () => {
    for (const ownerEmail of [null, "me@example.com"]) {
      const fromCheckout = ownerSignInHint({ ownerEmail, smtp: false, providers: [], dataDir: "/d" }).join("\n");
      expect(fromCheckout).toContain("npm run kith -- owner code --data-dir /d");
      expect(fromCheckout).not.toMatch(/(^|[^-] )kith owner code/);
      const fromBinary = ownerSignInHint({ ownerEmail, smtp: false, providers: [], dataDir: "/d", cli: "kith" }).join("\n");
      expect(fromBinary).toContain("kith owner code --data-dir /d");
      expect(fromBinary).not.toContain("npm run");
    }
  });
});
