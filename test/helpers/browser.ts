import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { ROOT } from "./process.ts";

/**
 * Browser tests drive Debian's chromium through playwright-core (which downloads no browser).
 * `.ci/run` installs it; where it cannot be installed the tests skip with a printed notice.
 */
export const CHROMIUM = process.env.KITH_CHROMIUM ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** Where the console's screenshots go (README, "The owner console"). */
export const SCREENSHOT_DIR = join(ROOT, ".tmp", "console-screenshots");

export function noticeIfNoBrowser(file: string): void {
  if (!HAS_CHROMIUM) console.warn(`[skip] ${file}: no chromium at ${CHROMIUM} (apt-get install -y chromium, or set KITH_CHROMIUM); the browser tests did not run`);
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

const AXE_SOURCE = () => readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core in the page (evaluated by the driver, so the page's CSP stays as it is): the serious and
 * critical violations of WCAG 2.x A/AA and best-practice rules.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE());
  const result = (await page.evaluate(`window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } })`)) as {
    violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>;
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}

/**
 * The controls of the page's main region (buttons, links, fields) that lie, even partly, outside
 * the viewport's width: on a phone they are cut off or need a sideways scroll nobody finds.
 */
export async function controlsOutsideViewport(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll("main :is(button, a[href], input, select, textarea)")]
    .map((el) => [el, el.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && (r.left < -0.5 || r.right > innerWidth + 0.5))
    .map(([el, r]) => el.tagName.toLowerCase() + " '" + (el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 40) + "' at " + Math.round(r.left) + ".." + Math.round(r.right) + " of " + innerWidth)`)) as string[];
}

/**
 * `<name>-390.png` and `<name>-1280.png` (and the viewport back to what it was), each the whole page
 * from its top. The viewport is made as tall as the page rather than using a full-page capture,
 * which draws sticky and fixed parts (top bar, action bar, toast) where the scrolled viewport had
 * them, in the middle of the content, where nobody ever sees them.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize()!;
  for (const width of [390, 1280]) {
    const height = width === 390 ? 844 : 800;
    await page.setViewportSize({ width, height });
    await page.evaluate("window.scrollTo(0, 0)");
    const full = (await page.evaluate("document.documentElement.scrollHeight")) as number;
    await page.setViewportSize({ width, height: Math.max(height, full) });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`) });
  }
  await page.setViewportSize(before);
}

/** A console screen opened at `#/<hash>`, once its heading `title` is there. */
export async function openScreen(page: Page, base: string, hash: string, title: string): Promise<void> {
  await page.goto(`${base}/console#/${hash}`);
  await page.getByRole("heading", { level: 1, name: title }).waitFor();
}

/**
 * The checks every console screen passes: axe finds nothing serious (also in dark mode with
 * `dark`); on a phone (390 px) no control is cut off; then the screenshots.
 */
export async function checkScreen(page: Page, name: string, options: { dark?: boolean } = {}): Promise<void> {
  const { expect } = await import("bun:test");
  expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  if (options.dark) {
    await page.emulateMedia({ colorScheme: "dark" });
    expect({ screen: `${name} (dark)`, violations: await seriousViolations(page) }).toEqual({ screen: `${name} (dark)`, violations: [] });
    await page.emulateMedia({ colorScheme: "light" });
  }
  const before = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  expect({ screen: name, outside: await controlsOutsideViewport(page) }).toEqual({ screen: name, outside: [] });
  await page.setViewportSize(before);
  await screenshots(page, name);
}
