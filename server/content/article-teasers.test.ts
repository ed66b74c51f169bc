// Related stories are ranked for every article page a worker renders, so the ranking walks the
// tags' lists together instead of counting in a map and sorting. Checked here against the plain
// way of saying it: the ranking on lists of every shape, the whole page on sites of every shape.
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Article, Teaser } from '../../src/content';
import {
  articlePage,
  keptList,
  keptTeasers,
  pageTeasers,
  rankByTags,
  rankedFrom,
  rankList,
  rankLists,
  relatedRanking,
  updatedRanking,
  type KeptList,
  type RelatedRanking,
} from './article-teasers';
import { frozenWithJson, jsonOf, sharedTeasers } from './cache';
import { serializeState } from '../../src/page-contract';

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

/** A story on the site the next test changes step by step: its number orders it (greater is newer). */
interface Live {
  n: number;
  tags: string[];
  section: 'news' | 'sport';
  published: boolean;
  revision: number;
}

const idOf = (n: number) => `2026112100${String(n).padStart(8, '0')}`;

function liveTeaser(story: Live): Teaser {
  return { ...teaserOf({ id: idOf(story.n), tags: story.tags, section: story.section }), title: `story ${story.n} (${story.revision})` };
}

/** What a newsroom does between two reads of the lists. */
const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      tags: fc.subarray(pool.slice(0, 4), { minLength: 1, maxLength: 3 }),
      sport: fc.boolean(),
      count: fc.integer({ min: 1, max: 2 }),
    }),
  },
  // Many at once: more than a list's candidates come in front before a page is read again.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      tags: fc.subarray(pool.slice(0, 4), { minLength: 1, maxLength: 3 }),
      sport: fc.boolean(),
      // Around relatedCandidatesPerTag (50) often: where the new ids themselves stop being candidates.
      count: fc.oneof(fc.integer({ min: 20, max: 70 }), fc.constantFrom(49, 50, 51)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('backdated' as const), tags: fc.subarray(pool.slice(0, 4), { minLength: 1, maxLength: 3 }), at: fc.nat() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unpublish' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('republish' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('correct' as const), at: fc.nat() }) },
  {
    weight: 2,
    // Often one of the newest: it then comes in front of a list it joins, though other lists held it before.
    arbitrary: fc.record({
      kind: fc.constant('retag' as const),
      at: fc.nat(),
      newest: fc.boolean(),
      tags: fc.subarray(pool.slice(0, 4), { minLength: 1, maxLength: 3 }),
    }),
  },
);

const counts = { updated: 0, computed: 0 };

test('a ranking brought up to date (updatedRanking) is the ranking from scratch after every push (one or many), unpublish, correction and retagging, however many reads behind', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 60, max: 130 }),
      fc.array(fc.tuple(step, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })), { minLength: 1, maxLength: 25 }),
      fc.array(fc.record({ tags: fc.subarray(pool.slice(0, 4), { minLength: 1, maxLength: 3 }), sport: fc.boolean() }), { minLength: 130, maxLength: 130 }),
      (size, steps, drawn) => {
        // Numbers ten apart, so a backdated story can come between two.
        const stories: Live[] = drawn
          .slice(0, size)
          .map((s, i) => ({ n: (i + 1) * 10, tags: s.tags, section: s.sport ? 'sport' : 'news', published: true, revision: 0 }));
        let newest = stories.length * 10;
        const lists = new Map<string, KeptList>();
        const texts = new Map<string, string>();
        /** Every list read again whose teasers changed, or at random (a read with the same ids), each with the read before it. */
        const read = (again: readonly boolean[]) => {
          for (const key of [...pool.slice(0, 4), 'news', 'sport']) {
            const members = stories
              .filter((s) => s.published && (key === s.section || s.tags.includes(key)))
              .sort((x, y) => y.n - x.n)
              .slice(0, 51);
            const text = JSON.stringify(members.map(liveTeaser));
            if (texts.get(key) === text && !again[key.length % again.length]) continue;
            texts.set(key, text);
            const teasers = frozenWithJson(members.map(liveTeaser));
            lists.set(
              key,
              keptList(
                teasers,
                teasers.map((t) => jsonOf(t)!),
                lists.get(key),
              ),
            );
          }
        };
        read([]);
        // What the cache keeps beside each article: its ranking, dropped when the article changes.
        const memos = new Map<number, RelatedRanking>();
        const check = (visit: readonly boolean[]) => {
          for (const story of stories) {
            if (!story.published || !visit[story.n % visit.length]) continue;
            const id = idOf(story.n);
            const tagLists = story.tags.map((tag) => lists.get(tag)!);
            const section = lists.get(story.section)!;
            const before = memos.get(story.n);
            let ranking: RelatedRanking;
            if (before === undefined) ranking = relatedRanking(id, tagLists);
            else if (rankedFrom(before, tagLists)) ranking = before;
            else {
              const updated = updatedRanking(before, tagLists);
              counts[updated ? 'updated' : 'computed'] += 1;
              ranking = updated ?? relatedRanking(id, tagLists);
            }
            memos.set(story.n, ranking);
            assert.deepEqual(ranking, relatedRanking(id, tagLists), `the ranking of ${story.n}`);
            const page = pageTeasers(ranking, tagLists, section);
            const scratch = articlePage({ id } as Article, tagLists, section);
            assert.deepEqual(page.related, scratch.related);
            assert.deepEqual(page.moreFromSection, scratch.moreFromSection);
          }
        };
        check([true]);
        for (const [change, choices] of steps) {
          const some = (at: number, published: boolean, newestOnly = false) => {
            const candidates = stories.filter((s) => s.published === published).sort((x, y) => y.n - x.n);
            const among = newestOnly ? Math.min(candidates.length, 8) : candidates.length;
            return among === 0 ? undefined : candidates[at % among]!;
          };
          if (change.kind === 'push') {
            for (let c = 0; c < change.count; c += 1) {
              const tags = c === 0 ? change.tags : pool.slice(0, 4).filter((_, t) => (t + c) % (c + 1) === 0 || change.tags.includes(pool[t]!));
              stories.push({ n: (newest += 10), tags, section: change.sport ? 'sport' : 'news', published: true, revision: 0 });
            }
          } else if (change.kind === 'backdated') {
            const n = 5 + 10 * (change.at % (newest / 10));
            if (!stories.some((s) => s.n === n)) stories.push({ n, tags: change.tags, section: 'news', published: true, revision: 0 });
          } else {
            const story = some(change.at, change.kind !== 'republish', change.kind === 'retag' && change.newest);
            if (story === undefined) continue;
            if (change.kind === 'unpublish') story.published = false;
            else if (change.kind === 'republish') story.published = true;
            else if (change.kind === 'correct') story.revision += 1;
            else story.tags = change.tags;
            // The article itself changed: its entry is read again, without the memo.
            memos.delete(story.n);
          }
          read(choices);
          check(choices);
        }
      },
    ),
    { numRuns: Number(process.env.RUNS ?? 200) },
  );
  console.log(`updated ${counts.updated}, ranked again ${counts.computed}`);
  assert.ok(counts.updated > counts.computed, `most changes were brought up to date (${counts.updated} updated, ${counts.computed} ranked again)`);
});

/** A list of stories of tag 'a' (ids by number, newest first), read after `previous`. */
function tagList(ids: number[], previous?: KeptList): KeptList {
  const teasers = frozenWithJson(ids.map((n) => teaserOf({ id: idOf(n), tags: ['a'], section: 'news' })));
  return keptList(
    teasers,
    teasers.map((t) => jsonOf(t)!),
    previous,
  );
}

test('a ranking brought up to date after a push is written over in place: no new array for each of the ~1,500 a push touches', () => {
  const before = [tagList([90, 70, 50, 30, 10]), tagList([80, 70, 40, 30])];
  const ranking = relatedRanking(idOf(30), before);
  const length = ranking.length;
  // Two new stories: one in the first tag's list, one in both (it ranks first, sharing two tags).
  const after = [tagList([110, 100, 90, 70, 50, 30, 10], before[0]), tagList([110, 80, 70, 40, 30], before[1])];
  const updated = updatedRanking(ranking, after);
  assert.equal(updated, ranking, 'the same array, written over');
  assert.equal(updated!.length, length, 'as long as before: room for every related story was made when it was ranked');
  assert.deepEqual(updated, relatedRanking(idOf(30), after), 'what ranking from scratch gives');
  assert.deepEqual(
    pageTeasers(updated!, after, null).related.map((t) => t.id),
    [110, 70, 100, 90, 80, 50].map(idOf),
  );
  // Where it cannot be brought up to date (a story left a list), it is left as it was and ranked afresh.
  const kept = ranking.slice();
  assert.equal(updatedRanking(ranking, [tagList([110, 100, 70, 50, 30, 10], after[0]!), after[1]!]), undefined);
  assert.deepEqual(ranking, kept);
});

test("a ranking takes its numbers from the room it is handed (the content cache's, where it keeps it), and one brought up to date stays in them", () => {
  const slab = new Int32Array(1024).fill(7);
  const asked: number[] = [];
  const room = (length: number) => {
    asked.push(length);
    return slab.subarray(100, 100 + length).fill(0);
  };
  const before = [tagList([90, 70, 50, 30, 10]), tagList([80, 70, 40, 30])];
  const ranking = relatedRanking(idOf(30), before, room);
  assert.equal(ranking.buffer, slab.buffer, "the room's numbers");
  assert.deepEqual(asked, [ranking.length], 'one piece of room, as long as the ranking');
  assert.deepEqual(ranking, relatedRanking(idOf(30), before), 'the same numbers as in an array of its own');
  const updated = updatedRanking(ranking, [tagList([110, 100, 90, 70, 50, 30, 10], before[0]), tagList([110, 80, 70, 40, 30], before[1])]);
  assert.equal(updated, ranking, 'brought up to date where it is');
  assert.equal(slab[99], 7, 'nothing written before its room');
  assert.equal(slab[100 + ranking.length], 7, 'nor after it');
});

test('a list read says which earlier reads it is with new ids in front of: none after a story left it', () => {
  const list = (ids: number[], previous?: KeptList) => {
    const teasers = frozenWithJson(ids.map((n) => teaserOf({ id: idOf(n), tags: [], section: 'news' })));
    return keptList(
      teasers,
      teasers.map((t) => jsonOf(t)!),
      previous,
    );
  };
  const first = list([30, 20, 10]);
  assert.deepEqual(first.since, []);
  const second = list([40, 30, 20, 10], first);
  assert.deepEqual(second.since, [first.version, 1]);
  const third = list([50, 45, 40, 30, 20, 10], second);
  assert.deepEqual(third.since, [second.version, 2, first.version, 3]);
  const same = list([50, 45, 40, 30, 20, 10], third);
  assert.deepEqual(same.since, [third.version, 0, second.version, 2, first.version, 3], 'the same ids read again (a correction)');
  assert.deepEqual(list([50, 40, 30, 20, 10], same).since, [], 'a story left the list');
  assert.deepEqual(list([50, 45, 40, 35, 30, 20, 10], same).since, [], 'an older story entered it');
  const full = Array.from({ length: 51 }, (_, i) => 1000 - i);
  const window = list(full);
  assert.deepEqual(list([1001, ...full.slice(0, 50)], window).since, [window.version, 1], 'the last id of the window drops off as one comes in front');
  assert.deepEqual(list([1001, ...full], window).since, [window.version, 1], 'beyond the window is out of sight');
  assert.deepEqual(list([40, 30, 20, 10, 5], first).since, [], 'a list shorter than the window: an older story at its end');
  assert.deepEqual(list([40, 30, 20], first).since, [], 'a list shorter than the window: its oldest story left as a new one came in front');
});

test('a list read again keeps each teaser it held unchanged as the same object and text; a new or changed one is its own, its text as written afresh', () => {
  // Each read gets rows of its own, as a store's read parses them.
  const rows = (ns: number[], changed: Record<number, Partial<Teaser>> = {}) =>
    ns.map((n) => ({ ...teaserOf({ id: idOf(n), tags: [], section: 'news' }), ...changed[n] }));
  const first = keptTeasers(rows([30, 20, 10]));
  assert.deepEqual(first.from, [-1, -1, -1]);
  assert.ok(first.teasers.every((t, i) => Object.isFrozen(t) && Object.isFrozen(t.image) && jsonOf(t) === first.json[i]));
  const credit = { ...teaserOf({ id: idOf(10), tags: [], section: 'news' }).image, credit: 'wire' };
  const second = keptTeasers(rows([40, 30, 20, 10], { 20: { title: 'story 20 (corrected)' }, 10: { image: credit } }), first);
  assert.deepEqual(second.from, [-1, 0, -1, -1], 'the new story, the corrected title and image read again; the rest as it was');
  assert.equal(second.teasers[1], first.teasers[0], 'an unchanged teaser is the object the read before kept');
  assert.equal(second.json[1], first.json[0]);
  for (const [i, teaser] of second.teasers.entries()) {
    assert.ok(Object.isFrozen(teaser) && Object.isFrozen(teaser.image));
    assert.equal(second.json[i], serializeState(teaser), `the text of ${teaser.id} is what it shows`);
    assert.equal(jsonOf(teaser), second.json[i]);
  }
  assert.equal(second.teasers[2]!.title, 'story 20 (corrected)');
  assert.equal(second.teasers[3]!.image.credit, 'wire');
  // Keys in another order write another text: read again rather than kept.
  const [reordered] = rows([30]).map(({ id, section, title, publishedAt, image, lead }) => ({ id, section, title, publishedAt, image, lead }));
  assert.deepEqual(keptTeasers([reordered!], first).from, [-1]);
  assert.deepEqual(keptTeasers(rows([20, 10]), null).from, [-1, -1], 'no read before');
});

test('a story in several lists is one teaser object in all of them while it is the same, and let go once no list holds it', async () => {
  const rows = (ns: number[], changed: Record<number, Partial<Teaser>> = {}) =>
    ns.map((n) => ({ ...teaserOf({ id: idOf(n), tags: ['a'], section: 'news' }), ...changed[n] }));
  const corrected = { 7_002: { title: 'story 7002 (corrected)' } };
  /** Everything, the story's section, a page behind a cursor and its tag, each read on its own (rows of its own, as a store's reads give them); only the tag's kept after. */
  const readLists = () => {
    const all = keptTeasers(rows([7_003, 7_002, 7_001]));
    const section = keptTeasers(rows([7_002, 7_001]));
    const older = frozenWithJson(rows([7_002]));
    assert.deepEqual(section.from, [-1, -1], 'not in the read before of its own list');
    assert.equal(section.teasers[0], all.teasers[1], 'the story kept for another list: the same object');
    assert.equal(section.json[0], all.json[1]);
    assert.equal(older[0], all.teasers[1], 'a page behind a cursor too');
    // Corrected: the next list read keeps its own object; a list not read again keeps the old one until it is.
    const tag = keptTeasers(rows([7_002], corrected));
    assert.notEqual(tag.teasers[0], all.teasers[1]);
    assert.equal(tag.teasers[0]!.title, 'story 7002 (corrected)');
    assert.equal(jsonOf(tag.teasers[0]!), serializeState(tag.teasers[0]));
    assert.equal(all.teasers[1]!.title, teaserOf({ id: idOf(7_002), tags: ['a'], section: 'news' }).title);
    return tag;
  };
  const tag = readLists();
  assert.equal(keptTeasers(rows([7_002], corrected)).teasers[0], tag.teasers[0], 'and the corrected one is then the one shared');
  // No list holds 7003 and 7001 any longer: the collector takes them and their slots go.
  const kept = sharedTeasers();
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 20 && sharedTeasers() > kept - 2; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(sharedTeasers() <= kept - 2, `the slots of the stories no list holds are let go (${kept} before, ${sharedTeasers()} after)`);
  assert.equal(tag.teasers.length, 1);
});
