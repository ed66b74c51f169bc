import type postgres from 'postgres';
import type { Article } from '../../src/content';
import { stateOf, type ArticleChange } from './changes';
import type { PostgresFeed } from './postgres-feed';
import { decideUnpublish, decideUpsert, storedRow, type StoredRow } from './rows';
import type { WriteOrder, WriteResult } from './source';
import { replaceParams, storedColumns, writeStatements } from './sql-queries';

// PostgreSQL's writes (the CMS's pushes, the seed's bulk load), each in one transaction, decided
// by rows.ts as SQLite's are, with the statements of sql-queries.ts. Each names the change it
// commits to the store's feed before its COMMIT, which tells it once (the rule: postgres-feed.ts).

const writeSql = writeStatements('postgres');

export interface PostgresWrites {
  upsert(article: Article, order: WriteOrder): Promise<WriteResult>;
  unpublish(id: string, updatedAt: string, order: WriteOrder): Promise<WriteResult>;
  /** Writes all of them in one transaction (the seed); returns how many rows went in. */
  insertMany(articles: readonly Article[]): Promise<number>;
  deleteAll(): Promise<number>;
}

/** Statements sent in a transaction, counted for the store's stats. */
type Counted = (statements: number) => void;

/**
 * Read in the writer's transaction, locked (FOR UPDATE), so the write is decided on what is
 * stored and a second writer of the same article waits for the first to commit, then decides on
 * what it wrote; the change it reports says what the article was.
 */
async function storedBefore(tx: postgres.TransactionSql, id: string, counted: Counted): Promise<StoredRow | null> {
  counted(1);
  const [row] = await tx.unsafe<StoredRow[]>(writeSql.storedRow, [id]);
  return row ?? null;
}

async function replace(tx: postgres.TransactionSql, row: StoredRow, counted: Counted): Promise<void> {
  counted(1);
  await tx.unsafe(writeSql.replace, replaceParams(row));
}

async function writeTags(tx: postgres.TransactionSql, article: Article, counted: Counted): Promise<void> {
  counted(2);
  await tx.unsafe(writeSql.dropTags, [article.id]);
  await tx.unsafe(writeSql.addTags, [article.tags.join(','), article.id]);
}

/**
 * An upsert's transaction. An insert racing another of the same new id (nothing was there to
 * lock) finds the other's row instead (ON CONFLICT DO NOTHING) and decides again on it, as if
 * this push had come second.
 */
async function upsertIn(tx: postgres.TransactionSql, article: Article, order: WriteOrder, counted: Counted) {
  let stored = await storedBefore(tx, article.id, counted);
  let decided = decideUpsert(stored, article, order);
  if (decided.write !== null && stored === null) {
    counted(1);
    const row = decided.write;
    const inserted = await tx.unsafe(
      writeSql.insert,
      storedColumns.map((c) => row[c]),
    );
    if (inserted.count === 0) {
      stored = await storedBefore(tx, article.id, counted);
      decided = decideUpsert(stored, article, order);
      if (decided.write !== null) await replace(tx, decided.write, counted);
    }
  } else if (decided.write !== null) await replace(tx, decided.write, counted);
  if (decided.write !== null) await writeTags(tx, article, counted);
  return { before: stored, decision: decided };
}

async function unpublishIn(tx: postgres.TransactionSql, id: string, updatedAt: string, order: WriteOrder, counted: Counted) {
  const stored = await storedBefore(tx, id, counted);
  const decided = decideUnpublish(stored, updatedAt, order);
  if (decided.write !== null) {
    counted(1);
    await tx.unsafe(writeSql.unpublish, [updatedAt, order.modifiedAt, decided.write.previewsRevokedBefore, id]);
  }
  return { before: stored, decision: decided };
}

/** What an upsert that writes changes: the article as it was stored (if it was) and as it now is. */
function upsertChange(article: Article, before: StoredRow | null): ArticleChange {
  const was = before === null ? null : stateOf(before.section, before.tags, before.status);
  return { kind: 'article', id: article.id, now: { section: article.section, tags: article.tags, status: article.status }, was };
}

function unpublishChange(id: string, before: StoredRow): ArticleChange {
  const was = stateOf(before.section, before.tags, before.status);
  return { kind: 'article', id, now: was === null ? null : { ...was, status: 'draft' }, was };
}

export function postgresWrites(sql: postgres.Sql, counted: Counted, feed: Pick<PostgresFeed, 'own' | 'bulk'>): PostgresWrites {
  return {
    upsert: (article, order) =>
      feed.own(async (expect) => {
        const { decision } = await sql.begin(async (tx) => {
          const done = await upsertIn(tx, article, order, counted);
          if (done.decision.write !== null) expect(upsertChange(article, done.before));
          return done;
        });
        return decision.result;
      }),

    unpublish: (id, updatedAt, order) =>
      feed.own(async (expect) => {
        const { decision } = await sql.begin(async (tx) => {
          const done = await unpublishIn(tx, id, updatedAt, order, counted);
          if (done.decision.write !== null && done.before !== null) expect(unpublishChange(id, done.before));
          return done;
        });
        return decision.result;
      }),

    async insertMany(articles) {
      if (articles.length === 0) return 0;
      // Seeded rows are ordered by their updated time, as if the CMS had pushed them then.
      const rows = articles.map((a) => storedRow(a, a.updatedAt, null));
      const tagRows = articles.flatMap((a) => a.tags.map((tag) => ({ tag, article_id: a.id })));
      await sql.begin(async (tx) => {
        counted(2);
        await tx`INSERT INTO articles ${tx(rows, ...storedColumns)}`;
        if (tagRows.length > 0) await tx`INSERT INTO article_tags ${tx(tagRows, 'tag', 'article_id')}`;
      });
      feed.bulk();
      return rows.length;
    },

    async deleteAll() {
      const result = await sql.begin((tx) => {
        counted(1);
        return tx.unsafe('DELETE FROM articles');
      });
      feed.bulk();
      return result.count;
    },
  };
}
