// The URL feed of the Gatling simulations: every published article of a content store.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from '@kiosk/surface';

/** The Gatling project this tool drives. */
export const loadtestDir = path.join(repositoryRoot, 'loadtest');
/** Where the simulations look by default (their classpath); generated, not committed. */
export const defaultFeedPath = path.join(loadtestDir, 'src', 'test', 'resources', 'article-urls.csv');
/** The CSV's columns, as the simulations read them (#{path}, #{section}, #{id}). */
export const feedColumns = ['path', 'section', 'id'] as const;

export interface FeedArticle {
  path: string;
  section: string;
  id: string;
}

/** Published articles only, newest first: the same order for the same store on every machine. */
export function publishedArticles(dbPath: string): FeedArticle[] {
  if (!fs.existsSync(dbPath)) throw new Error(`no content store at ${dbPath}: run \`npm run seed\` first`);
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'articles'").get();
    if (table === undefined) throw new Error(`content store ${dbPath} has no articles table: run \`npm run seed\` first`);
    const rows = db.prepare("SELECT section, id FROM articles WHERE status = 'published' ORDER BY id DESC").all() as {
      section: string;
      id: string;
    }[];
    return rows.map(({ section, id }) => ({ path: `/${section}/${id}`, section, id }));
  } finally {
    db.close();
  }
}

/** Writes the feed (atomically, so a simulation never reads half a file); returns how many URLs. */
export function writeFeed(dbPath: string, outFile: string): number {
  const articles = publishedArticles(dbPath);
  if (articles.length === 0) throw new Error(`content store ${dbPath} has no published articles: run \`npm run seed\``);
  const lines = [feedColumns.join(','), ...articles.map((a) => `${a.path},${a.section},${a.id}`)];
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const partial = `${outFile}.${process.pid}.partial`;
  fs.writeFileSync(partial, lines.join('\n') + '\n');
  fs.renameSync(partial, outFile);
  return articles.length;
}

/** The first article path of a feed, to check the site serves it before a run. */
export function firstFeedPath(feedFile: string): string {
  const [header, first] = fs.readFileSync(feedFile, 'utf8').split('\n', 2);
  const columns = header?.trim().split(',') ?? [];
  const value = first?.trim().split(',')[columns.indexOf('path')];
  if (!columns.includes('path') || !value?.startsWith('/')) {
    throw new Error(`${feedFile} is not a URL feed: its first line must name a "path" column, followed by paths like /news/<id>`);
  }
  return value;
}
