// Cache tags within CloudFront's rules, the coarse set past 50, and what each change purges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { everythingChanged, type ArticleChange } from '../content/changes';
import { cacheTagValue, isCacheTag, maxTagsPerObject, purgeItems, takesBack } from './tags';

const id = '202611222000000001';

test("a tag is ASCII 33-126 without commas, 1-256 characters: CloudFront's rules", () => {
  for (const good of ['front', 'l:all', `a:${id}`, 's:news', 't:climate-change', 'x'.repeat(256), '!~']) assert.ok(isCacheTag(good), good);
  for (const bad of ['', 'a b', 'a,b', 'x'.repeat(257), 'é', '\u007f', 'tab\t']) assert.ok(!isCacheTag(bad), JSON.stringify(bad));
  assert.throws(() => cacheTagValue(['a,b']), /not a CloudFront cache tag/);
});

test('past 50 tags an answer carries the coarse set; duplicates count once', () => {
  const precise = Array.from({ length: maxTagsPerObject + 1 }, (_, i) => `a:${String(i).padStart(18, '0')}`);
  assert.equal(cacheTagValue(precise, ['s:news', 'l:all']), 's:news,l:all');
  const fifty = precise.slice(0, maxTagsPerObject);
  assert.equal(cacheTagValue([...fifty, ...fifty], ['l:all']).split(',').length, maxTagsPerObject);
  assert.throws(() => cacheTagValue(precise, precise), /CloudFront keeps 50/);
});

test('an unpublish purges the story, every list it was in, the front page and the lists of all sections', () => {
  const change: ArticleChange = {
    kind: 'article',
    id,
    was: { section: 'news', tags: ['climate', 'energy'], status: 'published' },
    now: { section: 'news', tags: ['climate', 'energy'], status: 'draft' },
  };
  assert.deepEqual(purgeItems(change).sort(), [`#a:${id}`, '#front', '#l:all', '#s:news', '#t:climate', '#t:energy'].sort());
});

test('a correction that moves a story purges the lists it left and the lists it joined', () => {
  const change: ArticleChange = {
    kind: 'article',
    id,
    was: { section: 'news', tags: ['climate'], status: 'published' },
    now: { section: 'world', tags: ['energy'], status: 'published' },
  };
  assert.deepEqual(purgeItems(change).sort(), [`#a:${id}`, '#front', '#l:all', '#s:news', '#s:world', '#t:climate', '#t:energy'].sort());
});

test('what takes back what readers saw: a correction, an edit or an unpublish of a public story, or an unknown change; not a new story', () => {
  const published = { section: 'news', tags: ['climate'], status: 'published' } as const;
  const draft = { ...published, status: 'draft' } as const;
  assert.equal(takesBack({ kind: 'article', id, was: null, now: published }), false);
  assert.equal(takesBack({ kind: 'article', id, was: draft, now: published }), false);
  assert.equal(takesBack({ kind: 'article', id, was: published, now: published }), true);
  assert.equal(takesBack({ kind: 'article', id, was: published, now: draft }), true);
  assert.equal(takesBack({ kind: 'article', id, was: published, now: null }), true);
  assert.equal(takesBack(everythingChanged), true);
});

test('a draft that stays a draft purges nothing; a feed that cannot say what changed purges every path', () => {
  const draft: ArticleChange = { kind: 'article', id, was: null, now: { section: 'news', tags: [], status: 'draft' } };
  assert.deepEqual(purgeItems(draft), []);
  assert.deepEqual(purgeItems({ ...draft, was: draft.now }), []);
  assert.deepEqual(purgeItems(everythingChanged), ['/*']);
});
