import Database from 'better-sqlite3';
import fs from 'node:fs';
import { seedStore } from '@kiosk/surface';

/** Seeds a store of its own for the run: 10,000 published articles, the same on every machine. */
export async function seedBenchStore(dbPath: string): Promise<number> {
  fs.rmSync(dbPath, { force: true });
  const { inserted } = await seedStore(dbPath, { reset: true });
  return inserted;
}

/** Every published article's path, in a fixed shuffled order so neighbours share nothing. */
export function articlePaths(dbPath: string): string[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT section, id FROM articles WHERE status = 'published' ORDER BY id DESC").all() as { section: string; id: string }[];
    return shuffle(rows.map((row) => `/${row.section}/${row.id}`));
  } finally {
    db.close();
  }
}

/**
 * The breaking-news workload: 95% of requests go to 10 articles (the first 10 of the run's fixed
 * shuffle), the rest rotate over the others, interleaved so every second of a step has the same
 * mix.
 */
export function hotSetPaths(paths: string[], length = 4_000): string[] {
  const hot = paths.slice(0, 10);
  const cold = paths.slice(10);
  return Array.from({ length }, (_, i) => (i % 20 === 19 ? cold[Math.floor(i / 20) % cold.length]! : hot[i % hot.length]!));
}

function shuffle<T>(items: T[]): T[] {
  // A fixed LCG: the same order on every run, so runs are comparable.
  let state = 0x2545f491;
  const next = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor((next() / 2 ** 32) * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

export interface PageSample {
  path: string;
  status: number;
  renderMode: string | null;
  elements: number;
  bytes: number;
  html: string;
  headers: Record<string, string>;
}

/** Elements as a parser would count them: every start tag (the state JSON escapes its '<'). */
export function countElements(html: string): number {
  const withoutComments = html.replace(/<!--[\s\S]*?-->/g, '');
  return withoutComments.match(/<[a-zA-Z][a-zA-Z0-9-]*[\s/>]/g)?.length ?? 0;
}

export async function fetchPage(port: number, path: string): Promise<PageSample> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { accept: 'text/html' } });
  const html = await res.text();
  return {
    path,
    status: res.status,
    renderMode: res.headers.get('x-render-mode'),
    elements: countElements(html),
    bytes: Buffer.byteLength(html),
    html,
    headers: Object.fromEntries(res.headers),
  };
}
