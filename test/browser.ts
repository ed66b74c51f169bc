// Shared by the browser tests: Debian's Chromium driven by playwright-core, and a page that
// records every console error or warning and uncaught exception.
import { chromium, type Browser, type Page } from 'playwright-core';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    // The machine has no network beyond localhost: keep Chromium from calling home.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Collects console errors and warnings and page errors into the returned array. */
export function recordProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return problems;
}

/** Resolves once the client has announced a finished in-browser navigation. */
export function nextNavigation(page: Page): Promise<void> {
  return page.evaluate(() => new Promise<void>((resolve) => window.addEventListener('kiosk:navigated', () => resolve(), { once: true })));
}

export async function latestArticlePath(baseUrl: string, index = 0): Promise<string> {
  const res = await fetch(`${baseUrl}/api/latest?limit=${index + 1}`);
  const { items } = (await res.json()) as { items: { section: string; id: string }[] };
  return `/${items[index]!.section}/${items[index]!.id}`;
}
