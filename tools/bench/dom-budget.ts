// The DOM budget measured in one run, as the newsroom measured it: Kiosk with DOM_BUDGET on and
// off, each with the guard out of reach (pure server rendering), its SSR capacity found by the
// bench's own search, and the article page's elements as served and as finally shown in
// Chromium. bench.ts calls measureDomBudget once capacity is known; the figures go into the
// report's notes and into dom-budget.json beside it.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { fetchPage } from './articles';
import type { ServerUnderTest } from './processes';
import type { SearchOutcome } from './results';

export interface DomBudgetVariant {
  budget: 'on' | 'off';
  path: string;
  elementsServed: number;
  /** null: Chromium could not measure it here. */
  elementsShown: number | null;
  bytes: number;
  capacityPerS: number;
  capacityConfirmed: boolean | null;
}

export interface DomBudgetResult {
  variants: DomBudgetVariant[];
  /** Capacity with the budget on over capacity with it off (the target is at least 1.5). */
  capacityRatio: number | null;
  /** Elements served with the budget on over elements shown (the target is at most 0.6). */
  servedShare: number | null;
}

export interface DomBudgetHooks {
  /** Runs `work` against Kiosk started with these settings on top of the bench's "guard off". */
  withKiosk<T>(name: string, env: Record<string, string>, work: (server: ServerUnderTest) => Promise<T>): Promise<T>;
  findRate(server: ServerUnderTest, name: string, startPerS: number): Promise<SearchOutcome>;
  progress(line: string): void;
  outDir: string;
  /** The page measured: the bench's first article path. */
  path: string;
  /** Where the capacity search starts: near the capacity measured with the defaults. */
  startPerS: number;
}

/** Views flushed within a second, so most read is full when the page is counted. */
const viewsEnv = { VIEWS_FLUSH_S: '1' };
const readStories = 12;

export async function measureDomBudget(hooks: DomBudgetHooks): Promise<DomBudgetResult> {
  const variants: DomBudgetVariant[] = [];
  for (const budget of ['on', 'off'] as const) {
    const variant = await hooks.withKiosk(`DOM budget ${budget}`, { DOM_BUDGET: budget, ...viewsEnv }, async (server) => {
      const base = `http://127.0.0.1:${server.port}`;
      await readSomeStories(base);
      const sample = await fetchPage(server.port, hooks.path);
      if (sample.status !== 200) throw new Error(`${sample.path} answered ${sample.status}`);
      const elementsShown = await elementsAsShownInFull(base + hooks.path);
      hooks.progress(`DOM_BUDGET=${budget}: ${sample.elements} elements as served, ${elementsShown ?? 'not measured'} as finally shown, ${sample.bytes} bytes`);
      const search = await hooks.findRate(server, `SSR capacity, DOM_BUDGET=${budget}`, Math.max(10, Math.round(hooks.startPerS)));
      return {
        budget,
        path: hooks.path,
        elementsServed: sample.elements,
        elementsShown,
        bytes: sample.bytes,
        capacityPerS: search.ratePerS,
        capacityConfirmed: search.confirmed,
      };
    });
    variants.push(variant);
  }
  const [on, off] = variants as [DomBudgetVariant, DomBudgetVariant];
  const result: DomBudgetResult = {
    variants,
    capacityRatio: off.capacityPerS > 0 ? on.capacityPerS / off.capacityPerS : null,
    servedShare: on.elementsShown ? on.elementsServed / on.elementsShown : null,
  };
  fs.writeFileSync(path.join(hooks.outDir, 'dom-budget.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** The report's lines: one per variant, then the two ratios the targets are about. */
export function describeDomBudget(result: DomBudgetResult): string[] {
  const pct = (x: number | null) => (x === null ? 'not measured' : `${Math.round(x * 100)}%`);
  const lines = result.variants.map(
    (v) =>
      `DOM_BUDGET=${v.budget} (${v.path}): ${v.elementsServed} elements as served, ${v.elementsShown ?? 'not measured'} as finally shown in Chromium, ` +
      `${v.bytes} bytes; SSR capacity ${v.capacityPerS} req/s${v.capacityConfirmed === false ? ' (not confirmed by a full step)' : ''}.`,
  );
  lines.push(
    `DOM budget: capacity on/off ${result.capacityRatio === null ? 'not measured' : `${result.capacityRatio.toFixed(2)}x`} (target ≥ 1.5x); ` +
      `elements served with it on ${pct(result.servedShare)} of those shown (target ≤ 60%).`,
  );
  return lines;
}

/** A dozen stories read, so the most-read block has its ten (they rank within the flush and the 5 s a ranking is kept). */
async function readSomeStories(base: string): Promise<void> {
  const { items } = (await (await fetch(`${base}/api/latest?limit=${readStories + 20}`)).json()) as { items: { id: string }[] };
  await Promise.all(items.slice(20).map((h) => fetch(`${base}/api/views/${h.id}`, { method: 'POST' })));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const ranked = ((await (await fetch(`${base}/api/most-read`)).json()) as { items: unknown[] }).items;
    if (ranked.length >= 10) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The page as the reader finally sees it: Chromium opens it, waits for the client to be live and
 * for every block the browser completes (the latest list, most read, more from the section).
 */
export async function elementsAsShownInFull(url: string): Promise<number | null> {
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('html[data-kiosk-ready]', { timeout: 15_000 });
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.latest__list li').length >= 14 &&
        // Most read has arrived, or there is none (nothing read in the last hour: no box).
        (document.querySelector('.most-read') === null || document.querySelectorAll('.most-read__list li').length > 0) &&
        document.querySelectorAll('.teaser-grid--more .teaser').length > 0,
      undefined,
      { timeout: 15_000 },
    );
    return await page.evaluate(() => document.querySelectorAll('*').length);
  } catch {
    // No Chromium here, or the page never completed: the report says "not measured".
    return null;
  } finally {
    await browser?.close();
  }
}
