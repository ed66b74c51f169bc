// Related stories are ranked whenever a change makes an article page be put together again, so
// the ranking walks the tags' lists together instead of counting in a map and sorting, and a page
// put together again after a push starts from what it was (articlePageAgain). Both are checked
// here against the plain way of saying it: the ranking on lists of every shape, articlePageAgain
// against articlePage after runs of changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Article, Teaser } from '../../src/content';
import { articlePage, articlePageAgain, rankByTags, rankList, rankLists } from './article-teasers';

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

/**
 * Runs of changes as a newsroom makes them, to one small site over two sections: many stories
 * over a few tags (each tag's list then runs past the 50 candidates the ranking reads) or fewer
 * over many (lists too short to fill the related stories). Each step publishes a new story,
 * unpublishes one, corrects one's title or retags one.
 */
const changeRuns = fc
  .oneof(
    fc.record({ tagCount: fc.integer({ min: 2, max: 4 }), storyCount: fc.integer({ min: 80, max: 150 }) }),
    fc.record({ tagCount: fc.integer({ min: 6, max: 16 }), storyCount: fc.integer({ min: 20, max: 80 }) }),
  )
  .chain(({ tagCount, storyCount }) => {
    const tags = fc.subarray(pool.slice(0, tagCount), { minLength: 1, maxLength: Math.min(4, tagCount) });
    return fc.record({
      stories: fc.array(fc.record({ tags, section: fc.boolean() }), { minLength: storyCount, maxLength: storyCount }),
      // Often one of the newest, which is among the candidates of its own tags' lists.
      page: fc.oneof(
        fc.nat(60).map((n) => -1 - n),
        fc.nat(),
      ),
      steps: fc.array(
        fc.record({ kind: fc.constantFrom('new', 'new', 'new', 'unpublish', 'correct', 'retag'), which: fc.nat(), tags, section: fc.boolean() }),
        { minLength: 1, maxLength: 12 },
      ),
    });
  });

const pool = 'abcdefghijklmnop'.split('');

interface Story {
  id: string;
  tags: readonly string[];
  section: 'news' | 'sport';
  title: string;
  published: boolean;
}

function teaserOf(story: Story): Teaser {
  return Object.freeze({
    id: story.id,
    section: story.section,
    title: story.title,
    publishedAt: '2026-11-21T00:00:00.000Z',
    lead: 'lead',
    image: Object.freeze({ src: '/media/x.jpg', alt: 'x', caption: '', credit: '', width: 10, height: 10 }),
  });
}

/**
 * The lists as the content cache hands them out: each list's newest 51 (its head), a list the
 * change left alone the same frozen array as before, a story the change left alone the same
 * teaser object in every list that holds it.
 */
function headsOf(stories: readonly Story[], teasers: Map<string, Teaser>, before: Map<string, readonly Teaser[]>): Map<string, readonly Teaser[]> {
  const heads = new Map<string, readonly Teaser[]>();
  for (const list of [...pool.map((tag) => `tag:${tag}`), 'section:news', 'section:sport']) {
    const [kind, name] = list.split(':') as ['tag' | 'section', string];
    const head = stories
      .filter((s) => s.published && (kind === 'tag' ? s.tags.includes(name) : s.section === name))
      .sort((x, y) => (x.id < y.id ? 1 : -1))
      .slice(0, 51)
      .map((s) => teasers.get(s.id)!);
    const was = before.get(list);
    heads.set(list, was !== undefined && was.length === head.length && was.every((t, i) => t === head[i]) ? was : Object.freeze(head));
  }
  return heads;
}

test('articlePageAgain puts a page together as articlePage would, after any run of changes, and hands back the same page when nothing on it changed', () => {
  fc.assert(
    fc.property(changeRuns, ({ stories: drawn, page, steps }) => {
      let serial = 0;
      const id = () => `2026112100${String((serial += 1)).padStart(8, '0')}`;
      const stories: Story[] = drawn.map((s) => ({ id: id(), tags: s.tags, section: s.section ? 'news' : 'sport', title: 'first', published: true }));
      const teasers = new Map(stories.map((s) => [s.id, teaserOf(s)]));
      const subject = stories.at(page % stories.length)!;
      const article = { id: subject.id, tags: subject.tags, section: subject.section } as unknown as Article;
      const listsFor = (heads: Map<string, readonly Teaser[]>) => ({
        tagLists: subject.tags.map((tag) => heads.get(`tag:${tag}`)!),
        sectionList: heads.get(`section:${subject.section}`)!,
      });
      let heads = headsOf(stories, teasers, new Map());
      let lists = listsFor(heads);
      let shown = articlePage(article, lists.tagLists, lists.sectionList);
      for (const step of steps) {
        const others = stories.filter((s) => s.id !== subject.id);
        const story = others[step.which % others.length]!;
        if (step.kind === 'new') {
          const fresh: Story = { id: id(), tags: step.tags, section: step.section ? 'news' : 'sport', title: 'new', published: true };
          stories.push(fresh);
          teasers.set(fresh.id, teaserOf(fresh));
        } else if (step.kind === 'unpublish') story.published = false;
        else if (step.kind === 'correct') teasers.set(story.id, teaserOf(Object.assign(story, { title: `${story.title}, corrected` })));
        else story.tags = step.tags;
        heads = headsOf(stories, teasers, heads);
        const next = listsFor(heads);
        const again = articlePageAgain({ page: shown, tagLists: lists.tagLists }, article, next.tagLists, next.sectionList);
        const plain = articlePage(article, next.tagLists, next.sectionList);
        assert.deepStrictEqual(again, plain);
        const unchanged = sameTeasers(plain.related, shown.related) && sameTeasers(plain.moreFromSection, shown.moreFromSection);
        assert.equal(again === shown, unchanged, unchanged ? 'nothing on the page changed: the same page' : 'a new page');
        [shown, lists] = [again, next];
      }
    }),
    { numRuns: Number(process.env.RUNS ?? 1_000) },
  );
});

function sameTeasers(a: readonly Teaser[], b: readonly Teaser[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

test('articlePageAgain: a story pushed past the candidates of a list the page itself is in leaves its related stories', () => {
  // The page's story is the newest of tag a, so its candidates there run one further: to X, the
  // oldest, which shares both tags and so leads the related stories. A new story of tag a pushes
  // X out of the list's head; X keeps one tag in common and falls behind newer stories.
  const id = (n: number) => `2026112100${String(n).padStart(8, '0')}`;
  const x: Story = { id: id(1), tags: ['a', 'b'], section: 'news', title: 'x', published: true };
  const others: Story[] = Array.from({ length: 49 }, (_, i) => ({ id: id(2 + i), tags: ['a'], section: 'news', title: `o${i}`, published: true }));
  const subject: Story = { id: id(100), tags: ['a', 'b'], section: 'sport', title: 'p', published: true };
  const stories = [x, ...others, subject];
  const teasers = new Map(stories.map((s) => [s.id, teaserOf(s)]));
  const article = { id: subject.id, tags: subject.tags, section: subject.section } as unknown as Article;
  const before = headsOf(stories, teasers, new Map());
  const tagLists = [before.get('tag:a')!, before.get('tag:b')!];
  const shown = articlePage(article, tagLists, before.get('section:sport')!);
  assert.equal(shown.related[0]!.id, x.id);
  const pushed: Story = { id: id(101), tags: ['a'], section: 'news', title: 'new', published: true };
  stories.push(pushed);
  teasers.set(pushed.id, teaserOf(pushed));
  const now = headsOf(stories, teasers, before);
  const again = articlePageAgain({ page: shown, tagLists }, article, [now.get('tag:a')!, now.get('tag:b')!], now.get('section:sport')!);
  assert.deepStrictEqual(again, articlePage(article, [now.get('tag:a')!, now.get('tag:b')!], now.get('section:sport')!));
  assert.equal(again.related[0]!.id, pushed.id);
  assert.ok(!again.related.some((t) => t.id === x.id));
});

test('more from the section: one list for every page of the section that shows none of its stories already, its own where one does', () => {
  const id = (n: number) => `2026112100${String(n).padStart(8, '0')}`;
  // Tag a: eight sport stories; the section: twenty news stories, newer than all of them.
  const tagged: Story[] = Array.from({ length: 8 }, (_, i) => ({ id: id(1 + i), tags: ['a'], section: 'sport', title: `t${i}`, published: true }));
  const section: Story[] = Array.from({ length: 20 }, (_, i) => ({ id: id(100 + i), tags: [], section: 'news', title: `n${i}`, published: true }));
  const teasers = new Map([...tagged, ...section].map((s) => [s.id, teaserOf(s)]));
  const tagA = Object.freeze(tagged.map((s) => teasers.get(s.id)!).reverse());
  const news = Object.freeze(section.map((s) => teasers.get(s.id)!).reverse());
  const pageOf = (n: number) => articlePage({ id: id(n), tags: ['a'], section: 'news' } as unknown as Article, [tagA], news);
  const [p, q] = [pageOf(50), pageOf(51)];
  assert.equal(p.moreFromSection, q.moreFromSection, 'the same list, written once into the embedded state');
  assert.deepEqual(
    p.moreFromSection.map((t) => t.id),
    news.slice(0, 12).map((t) => t.id),
  );
  assert.ok(Object.isFrozen(p.moreFromSection));
  // A page whose story is among the section's newest twelve: the others, then the thirteenth.
  const inside = pageOf(115);
  assert.notEqual(inside.moreFromSection, p.moreFromSection);
  assert.deepEqual(
    inside.moreFromSection.map((t) => t.id),
    news
      .filter((t) => t.id !== id(115))
      .slice(0, 12)
      .map((t) => t.id),
  );
});
