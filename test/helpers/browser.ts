// Debian's Chromium driven by playwright-core for the console's browser tests
// (Playwright's own browser download is not reachable here; .ci/run installs
// chromium). Accessibility by axe-core, screenshots for docs/console/.
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM_PATH = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../docs/console');

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'], headless: true });
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Messages the browser logged about refused content (CSP) or uncaught errors: a console test expects none. */
  problems: string[];
}

/** A fresh context (its own cookies): axe needs a page made from a context, not browser.newPage(). */
export async function openConsole(browser: Browser, baseURL: string, colorScheme: 'light' | 'dark' = 'light'): Promise<ConsolePage> {
  const context = await browser.newContext({ baseURL, colorScheme, viewport: { width: 1366, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 40[134]/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  return { context, page, problems };
}

/** axe-core's serious and critical violations on the page as it is now, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Saves the page in light and dark (the system setting the console follows) as docs/console/<name>-<scheme>.png. */
export async function screenshotBothSchemes(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

export interface Credentials {
  email: string;
  password: string;
}

/** Logs in by the form, as a person would, and waits for the first page (search). */
export async function logIn(page: Page, who: Credentials): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Search' }).waitFor();
}

/** Every console page of the issues must pass axe with no serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}
