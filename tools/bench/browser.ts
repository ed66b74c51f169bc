// The page as the reader finally sees it: Debian's Chromium opens it, waits for the client to
// be live and for the latest list the server shortened (SSR_LATEST_ITEMS) to be complete, and
// counts the elements. Run between steps, never during one.
import { chromium } from 'playwright-core';

export async function elementsAsShown(url: string): Promise<number | null> {
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('html[data-kiosk-ready]', { timeout: 15_000 });
    await page.waitForFunction(() => !document.querySelector('.latest__list') || document.querySelectorAll('.latest__list li').length >= 14, undefined, {
      timeout: 15_000,
    });
    return await page.evaluate(() => document.querySelectorAll('*').length);
  } catch {
    // No Chromium here, or the page never became live: the report says "not measured".
    return null;
  } finally {
    await browser?.close();
  }
}
