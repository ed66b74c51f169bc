// Related stories are ranked for every article page a worker renders, so the ranking walks the
// tags' lists together instead of counting in a map and sorting. Checked here against the plain
// way of saying it: the ranking on lists of every shape, the whole page on sites of every shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Article, Teaser } from '../../src/content';
import { articlePage, keptList, rankByTags, rankList, rankLists, type KeptList } from './article-teasers';
import { frozenWithJson, jsonOf } from './cache';

/** Most tags in common first, newer (a greater id) first among equals: counted and sorted. */
function rankedPlainly(candidates: readonly (readonly string[])[], limit: number): string[] {
  const shared = new Map<string, number>();
  for (const ids of candidates) for (const id of ids) shared.set(id, (shared.get(id) ?? 0) + 1);
  return [...shared]
    .sort(([a, n], [b, m]) => m - n || (a < b ? 1 : a > b ? -1 : 0))
    .slice(0, limit)
    .map(([id]) => id);
}

/** Up to eight tags' lists drawn from a small pool of ids, so they overlap; each newest first, as a store reads them. */
const tagLists = fc.array(
  fc
    .uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 50 })
    .map((ids) => ids.sort((a, b) => b - a).map((n) => `2026112100000${String(n).padStart(5, '0')}`)),
  { maxLength: 8 },
);

test('rankByTags ranks as counting and sorting would, for any lists and limits', () => {
  fc.assert(
    fc.property(tagLists, fc.integer({ min: 0, max: 12 }), (candidates, limit) => {
      assert.deepEqual(rankByTags(candidates, limit), rankedPlainly(candidates, limit));
    }),
    { numRuns: 2_000 },
  );
});

test('rankLists leaves out the article and reads no more than perList others of each list, as filtering first would', () => {
  fc.assert(
    fc.property(tagLists, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 60 }), (lists, limit, n, perList) => {
      const skip = `2026112100000${String(n).padStart(5, '0')}`;
      const plain = rankedPlainly(
        lists.map((ids) => ids.filter((id) => id !== skip).slice(0, perList)),
        limit,
      );
      assert.deepEqual(rankLists(lists.map(rankList), limit, skip, perList), plain);
    }),
    { numRuns: 2_000 },
  );
});

test('rankByTags: three tags in common before two, newer first among equals', () => {
  assert.deepEqual(
    rankByTags(
      [
        ['9', '7', '5', '3'],
        ['9', '8', '5'],
        ['6', '5'],
      ],
      4,
    ),
    ['5', '9', '8', '7'],
  );
});

const pool = 'abcdefghijklmnop'.split('');

interface Story {
  id: string;
  tags: readonly string[];
  section: 'news' | 'sport';
}

function teaserOf(story: Story): Teaser {
  return {
    id: story.id,
    section: story.section,
    title: `story ${story.id}`,
    publishedAt: '2026-11-21T00:00:00.000Z',
    lead: 'lead',
    image: { src: '/media/x.jpg', alt: 'x', caption: '', credit: '', width: 10, height: 10 },
  };
}

/** A list as the content cache keeps it: its newest 51 stories, newest first. */
function listOf(stories: readonly Story[], keep: (s: Story) => boolean): KeptList {
  const teasers = frozenWithJson(
    stories
      .filter(keep)
      .sort((x, y) => (x.id < y.id ? 1 : -1))
      .slice(0, 51)
      .map(teaserOf),
  );
  return keptList(
    teasers,
    teasers.map((t) => jsonOf(t)!),
  );
}

/** The page written out plainly: the first 50 others of each tag ranked by counting, filled from the section's first 20, then 12 more. */
function pagePlainly(article: Story, tagLists: readonly KeptList[], section: readonly Teaser[]): { related: string[]; more: string[] } {
  const related = rankedPlainly(
    tagLists.map((list) =>
      list.teasers
        .map((t) => t.id)
        .filter((id) => id !== article.id)
        .slice(0, 50),
    ),
    6,
  );
  const more: string[] = [];
  for (const t of section.slice(0, 20)) {
    if (t.id === article.id || related.includes(t.id)) continue;
    if (related.length < 6) related.push(t.id);
    else if (more.length < 12) more.push(t.id);
  }
  return { related, more };
}

/**
 * Sites as a newsroom's look: many stories over a few tags (each tag's list then runs past the
 * 50 candidates the ranking reads) or fewer over many (lists too short to fill the related
 * stories), over two sections; the page is often one of the newest, which is among the
 * candidates of its own tags' lists.
 */
const sites = fc
  .oneof(
    fc.record({ tagCount: fc.integer({ min: 2, max: 4 }), storyCount: fc.integer({ min: 80, max: 150 }) }),
    fc.record({ tagCount: fc.integer({ min: 6, max: 16 }), storyCount: fc.integer({ min: 20, max: 80 }) }),
  )
  .chain(({ tagCount, storyCount }) => {
    const tags = fc.subarray(pool.slice(0, tagCount), { minLength: 1, maxLength: Math.min(4, tagCount) });
    return fc.record({
      stories: fc.array(fc.record({ tags, section: fc.boolean() }), { minLength: storyCount, maxLength: storyCount }),
      page: fc.oneof(
        fc.nat(60).map((n) => -1 - n),
        fc.nat(),
      ),
    });
  });

test('articlePage puts a page together as the plain rule says, on any site: related by tags, filled from the section, then more from it, nothing twice', () => {
  fc.assert(
    fc.property(sites, ({ stories: drawn, page }) => {
      const stories: Story[] = drawn.map((s, i) => ({
        id: `2026112100${String(i + 1).padStart(8, '0')}`,
        tags: s.tags,
        section: s.section ? 'news' : 'sport',
      }));
      const subject = stories.at(page % stories.length)!;
      const tagLists = subject.tags.map((tag) => listOf(stories, (s) => s.tags.includes(tag)));
      const section = listOf(stories, (s) => s.section === subject.section);
      const article = { id: subject.id, tags: subject.tags, section: subject.section } as unknown as Article;
      const shown = articlePage(article, tagLists, section);
      const plain = pagePlainly(subject, tagLists, section.teasers);
      assert.deepEqual(
        shown.related.map((t) => t.id),
        plain.related,
      );
      assert.deepEqual(
        shown.moreFromSection.map((t) => t.id),
        plain.more,
      );
      const ids = [article.id, ...shown.related.map((t) => t.id), ...shown.moreFromSection.map((t) => t.id)];
      assert.equal(new Set(ids).size, ids.length, 'no story twice on the page');
      for (const t of [...shown.related, ...shown.moreFromSection]) assert.ok(jsonOf(t) !== undefined, 'every teaser shown is one the cache keeps the text of');
    }),
    { numRuns: Number(process.env.RUNS ?? 1_000) },
  );
});
