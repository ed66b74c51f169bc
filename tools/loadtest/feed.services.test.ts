import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { seedTempStore } from '@kiosk/surface';
import { firstFeedPath, publishedArticles, writeFeed } from './feed';

let dir: string;
let dbPath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(120, 15));
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the feed lists every published article once, newest first, and no draft', () => {
  const file = path.join(dir, 'feed', 'urls.csv');
  assert.equal(writeFeed(dbPath, file), 120);
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  assert.equal(lines[0], 'path,section,id');
  assert.equal(lines.length, 121);
  const rows = lines.slice(1).map((line) => line.split(','));
  for (const [p, section, id] of rows) assert.equal(p, `/${section}/${id}`);
  const ids = rows.map((r) => r[2]!);
  assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
  assert.equal(new Set(ids).size, 120);
  assert.equal(firstFeedPath(file), rows[0]![0]);
  assert.deepEqual(publishedArticles(dbPath).map((a) => a.path), rows.map((r) => r[0]), 'the same order every time');
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['urls.csv'], 'no partial file left behind');
});

test('a missing store or a file that is not a feed is said plainly', () => {
  assert.throws(() => writeFeed(path.join(dir, 'nothing.sqlite'), path.join(dir, 'x.csv')), /no content store at .*npm run seed/);
  const notFeed = path.join(dir, 'not-a-feed.csv');
  fs.writeFileSync(notFeed, 'url\nhttp://example.com/\n');
  assert.throws(() => firstFeedPath(notFeed), /is not a URL feed/);
});
