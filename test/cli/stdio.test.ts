import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const STDIO = resolve(import.meta.dir, "../../src/cli/stdio.ts");

// The CLI's lines (banner, command output, the node's log) are written with writeSync, not through
// process.stdout/stderr (building those streams cost 3-9 ms of every start): nothing may be lost,
// cut or reordered, even when the reader is slow and the pipe fills.
describe("writeLine", () => {
  test("1 MB of lines through a pipe nobody reads for a while arrives whole and in order, on both descriptors", async () => {
    const script = `import { writeLine, stdoutIsTerminal } from ${JSON.stringify(STDIO)};
for (let i = 0; i < 50; i++) { writeLine(1, String(i).padStart(5, "0") + "x".repeat(20000)); writeLine(2, "e" + i); }
writeLine(1, "terminal: " + stdoutIsTerminal());`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    await Bun.sleep(200); // the child blocks (or falls back to the stream) on the full pipe meanwhile
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines.length).toBe(52);
    for (let i = 0; i < 50; i++) expect(lines[i]).toBe(String(i).padStart(5, "0") + "x".repeat(20000));
    expect(lines[50]).toBe("terminal: false"); // a pipe is not a terminal
    expect(err).toBe(Array.from({ length: 50 }, (_, i) => `e${i}\n`).join(""));
  });
});

// A blocking pipe (a shell's, `kith serve | tee`) whose reader falls behind must not stop the
// writer: with writeSync the child would wait inside its write loop and never reach the marker,
// while the reader waits for the marker before it reads (a deadlock: this test then times out).
test("lines to a blocking pipe whose reader waits do not block the writer; all arrive in order", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kith-stdio-"));
  const marker = join(dir, "written");
  const script = `import { writeLine } from ${JSON.stringify(STDIO)};
import { writeFileSync } from "node:fs";
for (let i = 0; i < 100; i++) writeLine(1, String(i).padStart(5, "0") + "y".repeat(10000));
writeFileSync(${JSON.stringify(marker)}, "done");`;
  const shell = `${JSON.stringify(process.execPath)} -e ${shellQuote(script)} | (while [ ! -f ${JSON.stringify(marker)} ]; do sleep 0.05; done; cat)`;
  const child = Bun.spawn(["sh", "-c", shell], { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  expect(code).toBe(0);
  const lines = out.split("\n");
  expect(lines.length).toBe(101);
  for (let i = 0; i < 100; i++) expect(lines[i]).toBe(String(i).padStart(5, "0") + "y".repeat(10000));
}, 20_000);

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
