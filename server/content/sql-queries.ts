import type { ArticleList } from './store';

// Every statement both SQL stores send about articles, written once. The two dialects differ in
// a few places only, each named here: how a parameter is written (`?` for SQLite, `$n` for
// PostgreSQL, numbered in the order they appear, so one parameter list serves both), the join of
// a tag's page (SQLite's CROSS JOIN fixes its join order: without statistics it would rather
// walk every published article and look each one's tags up), several lists' newest in one
// statement (SQLite: one UNION ALL part per list, a statement per shape of lists; PostgreSQL: one
// LATERAL statement for any lists), a ranking's headlines (SQLite: one indexed read per id;
// PostgreSQL: one statement for all), a row read to be written (PostgreSQL locks it: FOR UPDATE),
// an insert that races another of the same id (PostgreSQL: ON CONFLICT DO NOTHING, then decided
// again) and tags written (SQLite: a row per statement; PostgreSQL: all in one).
//
// Ids are 18 digits (publish minute + serial), so comparing them as text is comparing them by
// publish time: "newest first" is `ORDER BY id DESC` and a cursor is `id < ?`. Teaser lists never
// read the body: it is most of the row and no list shows it.

export type Dialect = 'sqlite' | 'postgres';

/** A statement and its parameters, in the order the statement names them. */
export interface Query {
  readonly text: string;
  readonly params: readonly (string | number | null)[];
}

/** Writes the next parameter's placeholder: each statement numbers its own from 1. */
function placeholders(dialect: Dialect): () => string {
  let n = 0;
  return () => (dialect === 'sqlite' ? '?' : `$${(n += 1)}`);
}

export const teaserColumns = 'id, section, title, lead, image, published_at';
export const articleColumns = `${teaserColumns}, author, updated_at, tags, body, status`;
const joinedTeaserColumns = 'a.id, a.section, a.title, a.lead, a.image, a.published_at';
const published = "status = 'published'";

/** An article's columns as a write sends them: the row's, then what orders writes. */
export const storedColumns = [
  'id',
  'section',
  'title',
  'lead',
  'image',
  'published_at',
  'author',
  'updated_at',
  'tags',
  'body',
  'status',
  'modified_at',
  'previews_revoked_before',
] as const;

/** The reads both stores send alike, by name: exported so tests can check every plan uses an index. */
function reads(dialect: Dialect) {
  const q = () => placeholders(dialect);
  const tagJoin = dialect === 'sqlite' ? 'CROSS JOIN' : 'JOIN';
  const tagPage = (p: () => string, older: boolean) =>
    `SELECT ${joinedTeaserColumns} FROM article_tags t ${tagJoin} articles a ON a.id = t.article_id
    WHERE t.tag = ${p()}${older ? ` AND t.article_id < ${p()}` : ''} AND a.${published} ORDER BY t.article_id DESC LIMIT ${p()}`;
  const sectionPage = (p: () => string, older: boolean) =>
    `SELECT ${teaserColumns} FROM articles
    WHERE ${published} AND section = ${p()}${older ? ` AND id < ${p()}` : ''} ORDER BY id DESC LIMIT ${p()}`;
  return {
    latest: ((p) => `SELECT ${teaserColumns} FROM articles WHERE ${published} ORDER BY id DESC LIMIT ${p()}`)(q()),
    latestNextPage: ((p) => `SELECT ${teaserColumns} FROM articles WHERE ${published} AND id < ${p()} ORDER BY id DESC LIMIT ${p()}`)(q()),
    sectionFirstPage: sectionPage(q(), false),
    sectionNextPage: sectionPage(q(), true),
    tagFirstPage: tagPage(q(), false),
    tagNextPage: tagPage(q(), true),
    publishedArticle: `SELECT ${articleColumns} FROM articles WHERE id = ${q()()} AND ${published}`,
    anyArticle: `SELECT ${articleColumns} FROM articles WHERE id = ${q()()}`,
    previewsRevokedBefore: `SELECT previews_revoked_before FROM articles WHERE id = ${q()()}`,
    countPublished: `SELECT CAST(count(*) AS integer) AS n FROM articles WHERE ${published}`,
    countAll: 'SELECT CAST(count(*) AS integer) AS n FROM articles',
    trendingTags: ((p) => `SELECT t.tag AS tag FROM (SELECT id FROM articles WHERE ${published} ORDER BY id DESC LIMIT ${p()}) AS r
    JOIN article_tags t ON t.article_id = r.id GROUP BY t.tag ORDER BY count(*) DESC, t.tag LIMIT ${p()}`)(q()),
    /** The oldest of the newest `window` (OFFSET window - 1): a change older than it cannot move the trending tags. */
    trendingOldest: `SELECT id FROM articles WHERE ${published} ORDER BY id DESC LIMIT 1 OFFSET ${q()()}`,
    publishedIds: `SELECT id FROM articles WHERE ${published}`,
  };
}

const sqliteReads = reads('sqlite');
const postgresReads = reads('postgres');

/** SQLite's reads: the shared ones and its ranking's, one headline per id. */
export const sqliteQueries = {
  ...sqliteReads,
  publishedHeadline: `SELECT id, section, title, published_at FROM articles WHERE id = ? AND ${published}`,
} as const;

/** PostgreSQL's reads: the shared ones, several lists' newest at once, and its ranking's headlines at once. */
export const postgresQueries = {
  ...postgresReads,
  // Per list, one of three index walks (the others are cut off by their kind), told apart by n.
  newestOfLists: `SELECT l.n::int AS n, t.* FROM unnest(string_to_array($1, ','), string_to_array($2, ',')) WITH ORDINALITY AS l(kind, name, n)
    CROSS JOIN LATERAL (
      (SELECT ${teaserColumns} FROM articles WHERE l.kind = 'all' AND ${published} ORDER BY id DESC LIMIT $3)
      UNION ALL
      (SELECT ${teaserColumns} FROM articles WHERE l.kind = 'section' AND ${published} AND section = l.name ORDER BY id DESC LIMIT $3)
      UNION ALL
      (SELECT ${joinedTeaserColumns} FROM article_tags tg JOIN articles a ON a.id = tg.article_id
        WHERE l.kind = 'tag' AND tg.tag = l.name AND a.${published} ORDER BY tg.article_id DESC LIMIT $3)
    ) AS t`,
  publishedHeadlines: `SELECT id, section, title, published_at FROM articles WHERE ${published} AND id = ANY(string_to_array($1, ','))`,
} as const;

type ListKind = 'all' | 'section' | 'tag';

function kindOf(list: ArticleList): ListKind {
  return list === 'all' ? 'all' : 'section' in list ? 'section' : 'tag';
}

function nameOf(list: ArticleList): string {
  return list === 'all' ? '' : 'section' in list ? list.section : list.tag;
}

/** At most `limit` published teasers of the list, newest first; only those older than `before` when given. */
export function teasersQuery(dialect: Dialect, list: ArticleList, limit: number, before: string | undefined): Query {
  const q = dialect === 'sqlite' ? sqliteReads : postgresReads;
  const older = before !== undefined;
  if (list === 'all') return older ? { text: q.latestNextPage, params: [before, limit] } : { text: q.latest, params: [limit] };
  const [first, next] = 'section' in list ? [q.sectionFirstPage, q.sectionNextPage] : [q.tagFirstPage, q.tagNextPage];
  return older ? { text: next, params: [nameOf(list), before, limit] } : { text: first, params: [nameOf(list), limit] };
}

/**
 * SQLite's several lists' newest in one statement: one part per list, each an index walk as the
 * single list's query is, told apart by `n` (from 1). Exported for the plan test.
 */
export function newestOfListsSql(kinds: readonly ListKind[]): string {
  const first = { all: sqliteReads.latest, section: sqliteReads.sectionFirstPage, tag: sqliteReads.tagFirstPage };
  return kinds.map((kind, i) => `SELECT ${i + 1} AS n, * FROM (${first[kind]})`).join('\n  UNION ALL ');
}

/** The newest `limit` published teasers of each list, rows told apart by `n` (from 1). */
export function newestQuery(dialect: Dialect, lists: readonly ArticleList[], limit: number): Query {
  if (dialect === 'sqlite') {
    const params = lists.flatMap((list) => (list === 'all' ? [limit] : [nameOf(list), limit]));
    return { text: newestOfListsSql(lists.map(kindOf)), params };
  }
  return { text: postgresQueries.newestOfLists, params: [lists.map(kindOf).join(','), lists.map(nameOf).join(','), limit] };
}

/** The published headlines of these ids, in any order: one statement per id for SQLite, one for all for PostgreSQL. */
export function headlinesQueries(dialect: Dialect, ids: readonly string[]): Query[] {
  if (ids.length === 0) return [];
  if (dialect === 'sqlite') return ids.map((id) => ({ text: sqliteQueries.publishedHeadline, params: [id] }));
  return [{ text: postgresQueries.publishedHeadlines, params: [ids.join(',')] }];
}

/**
 * The writer's statements. Parameters: `insert` and `replace` take storedColumns' values in
 * that order (replace names the id last: `replaceParams`), `storedRow` and `dropTags` an id,
 * `unpublish` (updated_at, modified_at, previews_revoked_before, id), `addTags` per dialect:
 * SQLite (tag, article id) once per tag, PostgreSQL (the tags joined by commas, article id).
 */
export function writeStatements(dialect: Dialect) {
  const p = () => placeholders(dialect);
  const values = ((next) => storedColumns.map(() => next()).join(', '))(p());
  const set = ((next) => storedColumns.slice(1).map((c) => `${c} = ${next()}`))(p());
  const unpublish = p();
  const postgres = dialect === 'postgres';
  return {
    insert: `INSERT INTO articles (${storedColumns.join(', ')}) VALUES (${values})${postgres ? ' ON CONFLICT (id) DO NOTHING' : ''}`,
    replace: `UPDATE articles SET ${set.join(', ')} WHERE id = ${postgres ? `$${storedColumns.length}` : '?'}`,
    // Read in the writer's transaction before deciding (PostgreSQL locks it, so a second writer of
    // the same article waits for the first to commit, then decides on what it wrote; SQLite's
    // writer holds the database's write lock already). Rows written before ordered pushes have
    // no modified_at: their updated_at stands in.
    storedRow: `SELECT ${teaserColumns}, author, updated_at, ${postgres ? 'tags::text AS tags' : 'tags'}, body, status,
    coalesce(modified_at, updated_at) AS modified_at, previews_revoked_before
  FROM articles WHERE id = ${p()()}${postgres ? ' FOR UPDATE' : ''}`,
    unpublish: `UPDATE articles SET status = 'draft', updated_at = ${unpublish()}, modified_at = ${unpublish()}, previews_revoked_before = ${unpublish()} WHERE id = ${unpublish()}`,
    dropTags: `DELETE FROM article_tags WHERE article_id = ${p()()}`,
    addTags: postgres
      ? `INSERT INTO article_tags (tag, article_id) SELECT tag, $2 FROM unnest(string_to_array($1, ',')) AS tag WHERE $1 <> ''`
      : 'INSERT INTO article_tags (tag, article_id) VALUES (?, ?)',
  };
}

/** Replace's parameters: the stored columns but the id, then the id (its WHERE comes last). */
export function replaceParams(row: Record<(typeof storedColumns)[number], string | null>): (string | null)[] {
  return [...storedColumns.slice(1).map((c) => row[c]), row.id];
}
