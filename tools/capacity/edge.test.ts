// The edge model: lifetimes, purges and the anchor, checked on behaviour, and its formula
// against a request-by-request run of CloudFront's cache at one location.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededRandom } from '@kiosk/surface';
import {
  batchPaths,
  calibrateLocations,
  compareEdge,
  drawStructure,
  edgeDefaults,
  edgeLoad,
  fetchRate,
  instancesFor,
  purgeBatchRate,
  todayLifetimes,
  type EdgeInput,
  type EdgeRegime,
  type EdgeSite,
} from './edge';
import { serveOnInstance, type InstanceCapacity } from './workload';

const site: EdgeSite = { ...edgeDefaults.site, articles: 2_000, htmlShare: 1 / 3.55 };
const structure = drawStructure(site, 1);
const today: EdgeRegime = edgeDefaults.today;
const purged: EdgeRegime = { lifetimes: edgeDefaults.newLifetimes, staleWhileRevalidateS: 30, pushesPerS: 1, purgeBatchS: 1 };
const capacity: InstanceCapacity = { vcpus: 4, ssrPerS: 90, shellPerS: 800, apiCost: 90 / 800 };

/**
 * One object at one edge location, request by request: Poisson requests and purges; kept for
 * `lifetimeS`; a purge drops it. Returns the origin's requests per second.
 */
function cacheRun(ratePerS: number, lifetimeS: number, purgesPerS: number, seconds: number, seed: number): number {
  const random = seededRandom(seed);
  const next = (rate: number) => (rate > 0 ? -Math.log(1 - random()) / rate : Infinity);
  let fetchedAt = -Infinity;
  let fetches = 0;
  let request = next(ratePerS);
  let purge = next(purgesPerS);
  while (request < seconds) {
    if (purge < request) {
      fetchedAt = -Infinity;
      purge += next(purgesPerS);
      continue;
    }
    // Fresh: a hit. Past its lifetime, a stale answer that refreshes it in the background or,
    // past stale-while-revalidate, a miss: either way one request to the origin.
    if (request >= fetchedAt + lifetimeS) {
      fetches += 1;
      fetchedAt = request;
    }
    request += next(ratePerS);
  }
  return fetches / seconds;
}

describe('one object at one location', () => {
  test('the formula is what a request-by-request run of the cache gives, with and without purges', () => {
    for (const [rate, lifetime, purges] of [
      [0.5, 10, 0],
      [0.05, 60, 0],
      [2, 3_600, 0.05],
      [0.02, 600, 0.01],
      [0.3, 3_600, 0],
    ] as const) {
      const run = cacheRun(rate, lifetime, purges, 400_000, 7);
      const formula = fetchRate(rate, lifetime, purges);
      assert.ok(Math.abs(run - formula) / formula < 0.05, `λ ${rate}, ${lifetime} s, purges ${purges}/s: run ${run}, formula ${formula}`);
    }
  });

  test('a longer lifetime asks the origin less often; a page read once an hour gains little from it', () => {
    for (const rate of [0.001, 0.05, 1, 20]) {
      let previous = Infinity;
      for (const lifetime of [10, 30, 60, 600, 3_600]) {
        const origin = fetchRate(rate, lifetime, 0);
        assert.ok(origin < previous, `λ ${rate}: ${lifetime} s`);
        previous = origin;
      }
    }
    const rare = 1 / 3_600;
    assert.ok(fetchRate(rare, 3_600, 0) > 0.4 * rare, 'most of its reads still miss');
  });

  test('a purge of a popular page costs one refill at every location that reads it; of a page nobody reads there, nothing', () => {
    const purges = 0.01;
    const popular = fetchRate(20, 3_600, purges) - fetchRate(20, 3_600, 0);
    assert.ok(Math.abs(popular - purges) < 0.05 * purges, `${popular} extra per second for ${purges} purges`);
    const unread = fetchRate(1e-5, 3_600, purges) - fetchRate(1e-5, 3_600, 0);
    assert.ok(unread < 0.01 * purges, `${unread}`);
  });

  test('batching: a page is purged once per batch at most, however many pushes touch it', () => {
    assert.ok(purgeBatchRate(0.001, 1) > 0.99 * 0.001, 'a rarely pushed page: every push a purge');
    assert.ok(purgeBatchRate(5, 1) <= 1);
    assert.ok(purgeBatchRate(5, 10) <= 0.1);
    assert.ok(purgeBatchRate(1, 10) < purgeBatchRate(1, 1));
    assert.equal(purgeBatchRate(0, 1), 0);
  });
});

describe('the site', () => {
  test('the seed draws the structure: the same seed the same, another seed another; every push reaches one section and its tags', () => {
    assert.deepEqual(drawStructure(site, 1), structure);
    assert.notDeepEqual(drawStructure(site, 2).sectionPushShare, structure.sectionPushShare);
    const sum = (a: Float64Array) => a.reduce((s, x) => s + x, 0);
    assert.ok(Math.abs(sum(structure.sectionPushShare) - 1) < 1e-9);
    assert.ok(Math.abs(sum(structure.tagPushShare) - site.tagsPerArticle) < 1e-9);
    assert.ok(structure.articleShare[0]! > structure.articleShare[1]! && structure.articleShare[1]! > structure.articleShare.at(-1)!);
  });

  test("longer article lifetimes lower the articles' origin requests and no other type's", () => {
    const longer: EdgeRegime = { ...today, lifetimes: { ...todayLifetimes, article: 3_600 } };
    const before = edgeLoad(site, structure, today, 3_000, 200);
    const after = edgeLoad(site, structure, longer, 3_000, 200);
    assert.ok(after.originPerS.article < 0.8 * before.originPerS.article, `${after.originPerS.article} against ${before.originPerS.article}`);
    for (const type of ['front', 'section', 'tag'] as const) assert.equal(after.originPerS[type], before.originPerS[type]);
    assert.ok(after.perThousand < before.perThousand);
  });

  test('more edge locations, more origin requests for the same views', () => {
    const few = edgeLoad(site, structure, purged, 3_000, 20);
    const many = edgeLoad(site, structure, purged, 3_000, 400);
    assert.ok(many.perThousand > few.perThousand);
    assert.ok(many.hit.front < few.hit.front);
  });

  test("regional edge caches between the locations and the origin: fewer origin requests, the fewer caches the fewer; the anchor is the locations'", () => {
    const direct = edgeLoad(site, structure, today, 3_000, 200);
    const three = edgeLoad(site, structure, today, 3_000, 200, 3);
    const one = edgeLoad(site, structure, today, 3_000, 200, 1);
    assert.ok(three.perThousand < direct.perThousand && one.perThousand < three.perThousand);
    // One cache in front of the origin: a page kept T seconds is asked for at most once per T (two objects a page).
    assert.ok(one.originPerS.front <= 2 / todayLifetimes.front, String(one.originPerS.front));
    const input = { site, seed: 1, today, purged, viewsPerS: 3_000, locations: null, frontHit: 0.8, anchorViewsPerS: 1_000, capacity };
    const withTier = compareEdge({ ...input, regionalCaches: 3 });
    assert.equal(withTier.locations, compareEdge({ ...input, regionalCaches: 0 }).locations, 'calibrated on the edge locations alone');
    assert.ok(Math.abs(withTier.anchorFrontHit - 0.8) < 1e-3);
  });

  test('the front page, purged by nearly every batch, gains nothing from a lifetime longer than the time between purges', () => {
    const tenMinutes = edgeLoad(site, structure, purged, 3_000, 200);
    const anHour = edgeLoad(site, structure, { ...purged, lifetimes: { ...purged.lifetimes, front: 3_600 } }, 3_000, 200);
    assert.ok(Math.abs(anHour.originPerS.front - tenMinutes.originPerS.front) < 1e-3 * tenMinutes.originPerS.front);
    const unpurged = edgeLoad(site, structure, { ...purged, pushesPerS: 0 }, 3_000, 200);
    assert.ok(unpurged.originPerS.front < 0.1 * tenMinutes.originPerS.front, 'the purges, not the lifetime, set its refills');
    const slowerBatches = edgeLoad(site, structure, { ...purged, purgeBatchS: 10 }, 3_000, 200);
    assert.ok(slowerBatches.originPerS.front < tenMinutes.originPerS.front);
  });

  test('the origin requests are split into page loads and /api by the share of views each is', () => {
    const load = edgeLoad(site, structure, today, 3_000, 200);
    const total = (load.perThousand * load.viewsPerS) / 1000;
    assert.ok(Math.abs(load.originHtmlPerS + load.originJsonPerS - total) < 1e-6 * total);
    const allHtml = edgeLoad({ ...site, htmlShare: 1 }, structure, today, 3_000, 200);
    assert.equal(allHtml.originJsonPerS, 0);
    // One object instead of two per page and location: each sees more requests, so fewer miss.
    assert.ok(allHtml.perThousand < load.perThousand);
  });
});

describe('the anchor and the comparison', () => {
  const input: EdgeInput = {
    site,
    seed: 1,
    today,
    purged,
    viewsPerS: 3_000,
    locations: null,
    regionalCaches: 0,
    frontHit: 0.8,
    anchorViewsPerS: 1_000,
    capacity,
  };

  test("calibrated, today's front page is answered at the edge for the anchor's share of its views", () => {
    const result = compareEdge(input);
    assert.ok(result.calibrated);
    assert.ok(Math.abs(result.anchorFrontHit - 0.8) < 1e-3, String(result.anchorFrontHit));
    // At the peak, three times the anchor's views over the same locations: a higher hit ratio.
    assert.ok(result.today.hit.front > 0.8);
    // What matters is views per location: twice the views at the anchor, twice the locations.
    const doubled = calibrateLocations(site, structure, today, 2_000, 0.8)!;
    assert.ok(Math.abs(doubled / result.locations - 2) < 1e-3, `${doubled} against ${result.locations}`);
    // A ratio no count of locations reaches is refused, not met by a number that means nothing.
    assert.equal(calibrateLocations(site, structure, today, 0.001, 0.99), null);
  });

  test('given locations are used as given, and the front page then shows how far it is from the anchor', () => {
    const fewer = compareEdge({ ...input, locations: 20 });
    assert.equal(fewer.locations, 20);
    assert.ok(!fewer.calibrated);
    assert.ok(fewer.anchorFrontHit > 0.8);
  });

  test('fewer origin requests, fewer instances: each count is the smallest that server-renders every page', () => {
    const result = compareEdge(input);
    assert.ok(result.purged.perThousand < result.today.perThousand);
    assert.ok(Math.abs(result.reduction - result.today.perThousand / result.purged.perThousand) < 1e-9);
    assert.ok(result.instances.purged <= result.instances.today);
    for (const load of [result.today, result.purged]) {
      const n = instancesFor(load, capacity);
      assert.equal(serveOnInstance(load.originHtmlPerS / n, load.originJsonPerS / n, capacity).shell, 0);
      if (n > 1) assert.ok(serveOnInstance(load.originHtmlPerS / (n - 1), load.originJsonPerS / (n - 1), capacity).shell > 0);
    }
  });
});

describe('Origin Shield and the purge budget', () => {
  test("the regional cache's own requests are the edge locations' misses: none without one, at least the origin's with one", () => {
    assert.equal(edgeLoad(site, structure, purged, 3_000, 200).regionalPerS, 0);
    const shielded = edgeLoad(site, structure, purged, 3_000, 200, 1);
    const direct = edgeLoad(site, structure, purged, 3_000, 200);
    const origin = (shielded.perThousand * shielded.viewsPerS) / 1000;
    assert.ok(shielded.regionalPerS > origin, `${shielded.regionalPerS} reach it, ${origin} pass it`);
    // What reaches the shield is what reached the origin without it.
    assert.ok(Math.abs(shielded.regionalPerS - (direct.perThousand * direct.viewsPerS) / 1000) < 1e-6 * shielded.regionalPerS);
  });

  test('a batch gathers fewer paths per push the longer it gathers: the lists and the busy pages repeat', () => {
    assert.equal(batchPaths(structure, 1, 0), 0);
    assert.equal(batchPaths(structure, 0, 60), 0);
    let previous = 0;
    for (const seconds of [1, 10, 60, 600]) {
      const paths = batchPaths(structure, 1, seconds);
      assert.ok(paths > previous, `${seconds} s: ${paths}`);
      previous = paths;
    }
    // A push alone: its article, section, three tags, the front page and l:all.
    assert.ok(Math.abs(batchPaths(structure, 1e-6, 1) / 1e-6 - 7) < 1e-3);
    assert.ok(batchPaths(structure, 1, 600) / 600 < batchPaths(structure, 1, 1) / 1, 'fewer paths per second in longer batches');
    assert.ok(batchPaths(structure, 1, 1e6) <= 2 + site.articles + site.sections + site.tags);
  });

  test("each budget's row: within the budget, later the smaller it is; unlimited sends every batch", () => {
    const input: EdgeInput = {
      site,
      seed: 1,
      today,
      purged,
      viewsPerS: 3_000,
      locations: null,
      regionalCaches: 1,
      frontHit: 0.8,
      anchorViewsPerS: 1_000,
      capacity,
    };
    const { budgets } = compareEdge(input);
    assert.deepEqual(
      budgets.map((b) => b.monthlyPaths),
      [...edgeDefaults.purgeBudgets],
    );
    const limited = budgets.filter((b) => b.monthlyPaths > 0).sort((a, b) => b.monthlyPaths - a.monthlyPaths);
    for (let i = 0; i < limited.length; i++) {
      const { monthlyPaths, delay } = limited[i]!;
      assert.ok(delay.pathsPerMonth <= monthlyPaths * (1 + 1e-9), `${monthlyPaths}: ${delay.pathsPerMonth}`);
      if (i > 0) assert.ok(delay.delayS >= limited[i - 1]!.delay.delayS, `${monthlyPaths}: ${delay.delayS} s`);
    }
    const unlimited = budgets.find((b) => b.monthlyPaths === 0)!;
    assert.equal(unlimited.delay.delayS, purged.purgeBatchS);
    assert.ok(!unlimited.delay.everything);
  });
});
