import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import type { Article } from '../../src/content';
import { openPostgresStore } from './postgres';
import { defaultDrafts, defaultPublished, defaultSeed, generateArticles, StoreNotEmptyError, type SeedOptions } from './seed';

const batchSize = 1_000;

/**
 * The SQLite seed's articles (the same generator, the same options), written into PostgreSQL
 * in transactions of 1,000. Opt-in only (`npm run seed -- --database-url URL`): a fleet's
 * database holds the newsroom's work, and no instance seeds it by itself.
 */
export async function seedPostgres(url: string, options: SeedOptions = {}): Promise<{ inserted: number; ms: number }> {
  const { published = defaultPublished, drafts = defaultDrafts, seed = defaultSeed, reset = false, log = () => undefined } = options;
  const started = performance.now();
  const store = openPostgresStore({
    url,
    poolSize: 1,
    timeoutMs: 60_000,
    unlistenedFreshMs: 1_000,
    listen: false,
  });
  try {
    const existing = await store.countAll();
    if (existing > 0 && !reset) throw new StoreNotEmptyError('the content database', existing);
    if (existing > 0) log(`seed: reset, deleted ${await store.deleteAll()} articles`);
    const total = published + drafts;
    let inserted = 0;
    let batch: Article[] = [];
    for (const article of generateArticles({ published, drafts, seed })) {
      batch.push(article);
      if (batch.length < batchSize && inserted + batch.length < total) continue;
      inserted += await store.insertMany(batch);
      batch = [];
      log(`seed: ${inserted}/${total} articles (${Math.floor((inserted * 100) / total)}%)`);
    }
    // Fresh tables have no statistics until autovacuum gets to them (a minute or more): the
    // planner then picks plans that made an article page's query take 20 ms instead of under
    // one. PostgreSQL's advice after a bulk load is to ANALYZE at once.
    await analyzeContent(url);
    const ms = Math.round(performance.now() - started);
    log(`seed: wrote ${inserted} articles (${published} published, ${drafts} drafts) in ${ms} ms`);
    return { inserted, ms };
  } finally {
    await store.end();
  }
}

/** Fresh planner statistics for the tables a page reads (ANALYZE takes a second on 10,000 articles). */
async function analyzeContent(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await sql`ANALYZE articles, article_tags`;
  } finally {
    await sql.end();
  }
}
