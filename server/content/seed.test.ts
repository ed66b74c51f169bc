// The demo seed is a fixture others quote: docs and records name its ids. A new section must
// leave every id where it was, and every article that stays in its section as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Article } from '../../src/content';
import { sections } from '../../src/sections';
import { generateArticles } from './seed';

const options = { published: 3_000, drafts: 60 };
const all = sections.map((s) => s.slug);

test('adding a section keeps every id, and every article it does not take stays as it was', () => {
  for (const added of all) {
    const before = [...generateArticles({ ...options, sections: all.filter((slug) => slug !== added) })];
    const after = [...generateArticles({ ...options, sections: all })];
    assert.ok(!before.some((a) => a.section === added), `the seed files nothing to ${added} before it is added`);
    assert.deepEqual(
      after.map((a) => a.id),
      before.map((a) => a.id),
      `adding ${added} moved no id`,
    );
    const taken = after.filter((a) => a.section === added).length;
    // The new section gets its share and no more: news files three times as often as any other desk.
    const share = (added === 'news' ? 3 : 1) / (all.length + 2);
    assert.ok(Math.abs(taken / after.length - share) < 0.3 * share, `${added} took ${taken} of ${after.length}`);
    const changed = after.filter((a, i) => a.section !== added && JSON.stringify(a) !== JSON.stringify(before[i]));
    assert.deepEqual(
      changed.map((a) => a.id),
      [],
      `adding ${added} changed only the articles it took`,
    );
  }
});

test('the same options give the same articles; every section gets articles, news about three times as many', () => {
  const first = [...generateArticles(options)];
  assert.deepEqual([...generateArticles(options)], first);
  const count = (slug: string) => first.filter((a: Article) => a.section === slug).length;
  for (const { slug } of sections) assert.ok(count(slug) > 0, slug);
  const others = sections.filter((s) => s.slug !== 'news').map((s) => count(s.slug));
  const mean = others.reduce((a, b) => a + b, 0) / others.length;
  assert.ok(count('news') > 2.4 * mean && count('news') < 3.6 * mean, `news ${count('news')} against ${mean.toFixed(0)} a section`);
});
