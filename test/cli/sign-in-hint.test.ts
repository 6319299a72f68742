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

// The same for every other command the CLI tells its reader to run (usage, help hints, advice).
describe("the commands the CLI prints elsewhere", () => {
  test("usage, the --help hint and advice name npm run kith -- from a checkout, never a bare kith command", async () => {
    const { runKith } = await import("../helpers/process.ts");
    const top = await runKith(["--help"]);
    expect(top.stdout).toContain("Usage: npm run kith -- <command> [options]");
    expect(top.stdout).toContain("Run `npm run kith -- <command> --help` for the options of a command.");
    const mailbox = await runKith(["mailbox", "--help"]);
    expect(mailbox.stdout).toContain("Usage: npm run kith -- mailbox grant <agentId>");
    expect(mailbox.stdout).toContain("| npm run kith -- mailbox list");
    const wrong = await runKith(["mailbox", "frobnicate"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Run `npm run kith -- mailbox --help` for usage.");
    for (const r of [top, mailbox, wrong]) expect(r.stdout + r.stderr).not.toMatch(/([(: ]|\| )kith (init|serve|mailbox|keys|owner|restore|backup|doctor|<command>)\b/m); // "kith mailbox: …" at a line start is the error prefix, the program speaking
  });
});
