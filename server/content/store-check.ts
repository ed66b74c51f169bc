import fs from 'node:fs';
import type { Config } from '../config';
import Database from 'better-sqlite3';
import { openSqliteStore, upgradeSqliteStore } from './sqlite';
import { moveSignupsFromViewsFile, signupsPathFor } from './sqlite-signups';
import { prepareViewsFile, viewsPathFor } from './sqlite-views';

// Before the cluster starts: a SQLite store with nothing to publish is a mistake (a store not
// mounted, a path mistyped), never a reason to make news up. Demo articles come only when
// asked for, with SEED_DEMO_CONTENT=true (dist/server/seed-demo.cjs) or `npm run seed`.

const howToFill =
  'fill it with the CMS (ingestion) or a copy of the newsroom store; for a demo, set SEED_DEMO_CONTENT=true (seeds made-up articles at start) or run "npm run seed"';

/**
 * Why the SQLite store cannot serve, or null when it can or is not used (CONTENT_API_URL, or
 * CONTENT_DATABASE_URL, whose schema `npm run db:migrate` makes and whose content the CMS fills).
 */
export function contentStoreProblem(config: Pick<Config, 'content'>): string | null {
  if (config.content.store !== 'sqlite') return null;
  const contentDbPath = config.content.path;
  if (!fs.existsSync(contentDbPath)) return `No content store at ${contentDbPath}: ${howToFill}.`;
  upgradeSqliteStore(contentDbPath);
  let published: number;
  try {
    const store = openSqliteStore(contentDbPath, { readonly: true });
    try {
      published = store.countPublished();
    } finally {
      store.close();
    }
  } catch (error) {
    return `The content store at ${contentDbPath} cannot be read (${(error as Error).message}): ${howToFill}.`;
  }
  if (published === 0) return `The content store at ${contentDbPath} has no published articles: ${howToFill}.`;
  prepareReaderFiles(contentDbPath);
  return null;
}

/**
 * The files beside the content store that readers write (views, sign-ups), made ready before
 * the workers start, where waiting for a lock harms nobody: the workers never wait for one.
 * A views file from before running totals is upgraded; sign-ups it held move to their own file.
 */
function prepareReaderFiles(contentDbPath: string): void {
  const viewsPath = viewsPathFor(contentDbPath);
  const views = new Database(viewsPath);
  try {
    views.pragma('busy_timeout = 5000');
    prepareViewsFile(views);
  } finally {
    views.close();
  }
  moveSignupsFromViewsFile(viewsPath, signupsPathFor(contentDbPath));
}
