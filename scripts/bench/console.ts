// The owner console's budget (issue 17), measured, not tested: console JS at most 40 KB gzipped and
// the first meaningful paint (the signed-in inbox heading) under 500 ms against a local node.
// Usage: npx bun scripts/bench/console.ts [runs=7] [path to a kith binary; default bun src/main.ts]
// Needs chromium (/usr/bin/chromium or KITH_CHROMIUM). Prints medians of `runs` cold loads (a fresh
// browser context, empty cache) and, as the baseline of the same run, the same browser loading a
// static JSON document from the same node, so a loaded machine shows up as a ratio.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium, HAS_CHROMIUM, CHROMIUM } from "../../test/helpers/browser.ts";
import { runKith, startKith } from "../../test/helpers/process.ts";

const runs = Number(process.argv[2] ?? 7);
const bin = process.argv[3] ? [process.argv[3]] : undefined;
if (!HAS_CHROMIUM) {
  console.error(`no chromium at ${CHROMIUM}`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), "kith-bench-console-"));
const dir = join(work, "data");
const email = "owner@example.com";
const port = String(20000 + Math.floor(Math.random() * 20000));
const init = await runKith(["init", "--data-dir", dir, "--handle", "bench", "--owner-email", email, "--public-url", `http://127.0.0.1:${port}`], { ...(bin ? { bin } : {}) });
if (init.code !== 0) throw new Error(init.stderr);
const node = await startKith(["--data-dir", dir, "--port", port], { ...(bin ? { bin } : {}) });
const browser = await launchChromium();
try {
  // Size: what the browser downloads, gzipped as the node sends it.
  const html = await (await fetch(`${node.url}/console`)).text();
  let js = 0;
  let css = 0;
  for (const [, path] of html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
    const body = new Uint8Array(await (await fetch(`${node.url}${path}`, { headers: { "accept-encoding": "identity" } })).arrayBuffer());
    const gz = Bun.gzipSync(body, { level: 9 }).byteLength;
    if (path!.endsWith(".js")) js += gz;
    else css += gz;
  }
  console.log(`console JS ${(js / 1024).toFixed(1)} KB gz (budget 40 KB), CSS ${(css / 1024).toFixed(1)} KB gz`);

  // A signed-in session to copy into every cold context.
  const first = await browser.newContext();
  const page = await first.newPage();
  await page.goto(`${node.url}/console`);
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "I have a code" }).click();
  const code = (await runKith(["owner", "code", "--data-dir", dir], { ...(bin ? { bin } : {}) })).stdout.trim().split("\n").at(-1)!;
  await page.getByLabel("Sign-in code").fill(code);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
  const cookies = await first.cookies();
  await first.close();

  const paint: number[] = [];
  const fcp: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext();
    await ctx.addCookies(cookies);
    const p = await ctx.newPage();
    await p.goto(`${node.url}/console`);
    // When the inbox heading (the first meaningful content: the session restored, the identity read) exists.
    // A function, not a string: a string would be eval'd in the page, which its CSP (rightly) forbids.
    await p.waitForFunction(() => (globalThis as any).document.querySelector("main h1")?.textContent === "Inbox", undefined, { polling: "raf" });
    paint.push((await p.evaluate("performance.now()")) as number);
    fcp.push((await p.evaluate(`performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN`)) as number);
    await p.goto(`${node.url}/.well-known/ink/agent.json`);
    baseline.push((await p.evaluate(`performance.getEntriesByType("navigation")[0].duration`)) as number);
    await ctx.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`first meaningful paint (signed-in inbox), cold cache: median ${median(paint).toFixed(0)} ms over ${runs} runs (budget 500 ms); first contentful paint ${median(fcp).toFixed(0)} ms`);
  console.log(`baseline (a JSON document from the same node, same browser): median ${median(baseline).toFixed(1)} ms; ratio ${(median(paint) / median(baseline)).toFixed(1)}x`);
} finally {
  await browser.close();
  await node.stop();
  rmSync(work, { recursive: true, force: true });
}
