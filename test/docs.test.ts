// Facts the docs state once, checked against the code that decides them: a change to the code
// fails here until the one place in the docs follows, instead of leaving copies that lie.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cacheControl, purgedCacheControl } from '../server/cache-policy';
import { defaultDrafts, defaultPublished, generateArticles } from '../server/content/seed';

const root = path.resolve(import.meta.dirname, '..');

/** The rows of the first Markdown table after `heading`, as cells. */
function tableAfter(file: string, heading: string): string[][] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has "${heading}"`);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The README and the docs of the present (the dated records in docs/benchmarks/ are history). */
const docs = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const sMaxAge = (header: string) => /s-maxage=(\d+)/.exec(header)?.[1];

test("docs/architecture.md's cache policy table says what server/cache-policy.ts sends, row for row", () => {
  const rows = new Map(tableAfter('docs/architecture.md', '## Cache policy').map(([what, value]) => [what!, value!]));
  const first = (cell: string | undefined) => /`([^`]+)`/.exec(cell ?? '')?.[1];
  const said: Record<string, string | undefined> = {};
  const expected: Record<string, string> = {
    'front page': cacheControl.front,
    'section page': cacheControl.section,
    'article page': cacheControl.article,
    'tag page': cacheControl.tag,
    'not found': cacheControl.notFound,
    '`/assets/*`, `/media/*`': cacheControl.assets,
    '400, 405, 5xx, `/healthz`, `POST /api/views/:id`, `POST /newsletter`': cacheControl.noStore,
    '503 content unavailable (newsroom API failing, nothing recent cached)': cacheControl.contentUnavailable,
  };
  for (const what of Object.keys(expected)) {
    const cell = rows.get(what);
    assert.ok(cell !== undefined, `a row for "${what}"`);
    // "same with `s-maxage=N`": the front page's header with that lifetime.
    const same = /^same with `s-maxage=(\d+)`$/.exec(cell)?.[1];
    said[what] = same === undefined ? first(cell) : cacheControl.front.replace(/s-maxage=\d+/, `s-maxage=${same}`);
  }
  assert.deepEqual(said, expected);
  assert.equal(sMaxAge(said['article page']!), sMaxAge(cacheControl.article));

  // The third column: the lifetimes with edge purge on.
  const purged = new Map(tableAfter('docs/architecture.md', '## Cache policy').map((row) => [row[0]!, row[2]]));
  const withPurge: Record<string, string> = {
    'front page': purgedCacheControl.front,
    'section page': purgedCacheControl.section,
    'article page': purgedCacheControl.article,
    'tag page': purgedCacheControl.tag,
    'latest list (`/api/latest`)': purgedCacheControl.latest,
    'most read (`/api/most-read`)': purgedCacheControl.mostRead,
  };
  for (const [what, header] of Object.entries(withPurge)) {
    const same = /^same with `s-maxage=(\d+)`$/.exec(purged.get(what) ?? '')?.[1];
    assert.equal(same === undefined ? undefined : cacheControl.front.replace(/s-maxage=\d+/, `s-maxage=${same}`), header, `with edge purge: ${what}`);
  }
});

test('no doc counts the sections: src/sections.ts is where they are', () => {
  const counted = docs.flatMap((file) =>
    fs
      .readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\b(\d+|twelve|thirteen) sections\b/i.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.deepEqual(counted, []);
});

test('every article path the docs quote as an example is one the demo seed writes', () => {
  const quoted = docs.flatMap((file) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/\/([a-z-]+)\/(\d{18})\b/g)].map((m) => ({ file, path: m[0] })),
  );
  assert.ok(quoted.length > 0, 'the docs quote an example article');
  const seeded = new Set<string>();
  for (const article of generateArticles({ published: defaultPublished, drafts: defaultDrafts })) seeded.add(`/${article.section}/${article.id}`);
  assert.deepEqual(
    quoted.filter((q) => !seeded.has(q.path)),
    [],
  );
});
