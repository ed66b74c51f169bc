// The edge: how many of the readers' page views reach the origin, from the pages' lifetimes at
// CloudFront, the purges a push sends, and how the views spread over pages and edge locations.
//
// Each cached object (a page's HTML, or its /api JSON, cached apart) at each edge location is
// asked for as a Poisson stream of rate λ. The origin is asked once per cycle: a fetch, then the
// object serves for D (its lifetime, or less when a purge drops it first), then the next request
// (a miss, or with stale-while-revalidate a stale answer that refreshes it in the background)
// fetches it again. The wait for that request is 1/λ on average whatever came before, so the
// origin sees λ / (1 + λ·E[D]) requests per second from that object at that location.
// Stale-while-revalidate changes who waits, not how often the origin is asked: every refresh is
// a request to the origin. A purge drops the object at every location; the next request there
// is a miss (stale content is never served after a purge).
//
// With regional edge caches (CloudFront's tier between its edge locations and the origin), the
// edge locations' fetches are the regional caches' requests, shared evenly, with the same
// formula; only the regional caches' fetches reach the origin. The distribution's Origin Shield
// (.ebextensions/10-cloudfront.config) is one such cache that every fetch goes through: the
// default when the distribution has it (edge-distribution.ts).
//
// Purges: pushes arrive at pushesPerS, each an update to an article chosen as readers choose
// them (a story being updated is likeliest one being read, the costliest assumption), and touch its article, its section,
// its tags and the front page (which carries the latest list). The sender batches every
// purgeBatchS, so a page is purged at most once per batch: by the batches holding at least one
// push that touches it, taken as a Poisson stream of that rate.
import { budgetDelay, maxItemsPerCall, seededRandom, type BudgetDelay } from '@kiosk/surface';
import { InputError } from './duration';
import { serveOnInstance, type InstanceCapacity } from './workload';

export type PageType = 'front' | 'section' | 'tag' | 'article';
export const pageTypes: readonly PageType[] = ['front', 'section', 'tag', 'article'];

/** Seconds an object is kept at an edge location (s-maxage), by page type. */
export type Lifetimes = Record<PageType, number>;

export interface EdgeSite {
  articles: number;
  sections: number;
  tags: number;
  tagsPerArticle: number;
  /** Zipf exponent of the popularity within each page type: the k-th page is read ∝ 1/k^s. */
  zipf: number;
  /** Share of page views by page type; sums to 1. */
  mix: Record<PageType, number>;
  /** Share of views that are page loads (HTML); the rest are /api JSON, a separate object at the edge. */
  htmlShare: number;
}

export interface EdgeRegime {
  lifetimes: Lifetimes;
  /** Stale-while-revalidate after the lifetime, seconds: hides a refresh's latency, asks the origin as often. */
  staleWhileRevalidateS: number;
  /** Pushes per second whose pages are purged; 0: nothing is purged, pages live out their lifetimes. */
  pushesPerS: number;
  /** The sender's batch: one purge per page per batch at most. */
  purgeBatchS: number;
}

/** The lifetimes before purging (server/cache-policy.ts before edge purging): front 10 s, sections 30 s, articles 60 s, tags 120 s. */
export const todayLifetimes: Lifetimes = { front: 10, section: 30, tag: 120, article: 60 };

export const edgeDefaults = {
  site: {
    articles: 10_000,
    // The seeded store's twelve desks, their 83 topics and the five that cut across (seed-tags.ts),
    // about three a story.
    sections: 12,
    tags: 88,
    tagsPerArticle: 3,
    zipf: 1,
    // The load test's reader journey (3.55 views: two articles, a section, the front page for 55%),
    // with a share of the section views on tag pages.
    mix: { front: 0.15, section: 0.25, tag: 0.05, article: 0.55 },
  },
  today: { lifetimes: todayLifetimes, staleWhileRevalidateS: 30, pushesPerS: 0, purgeBatchS: 1 },
  // Purge-driven: an hour for what a push reaches only through its own tags, ten minutes for the
  // front page, which every push purges anyway (the lifetime only bounds a missed purge).
  newLifetimes: { front: 600, section: 3_600, tag: 3_600, article: 3_600 },
  pushesPerS: 1,
  purgeBatchS: 1,
  /** The newsroom's front page: 80% of its views answered at the edge, on a normal day. */
  frontHit: 0.8,
  anchorViewsPerS: 1_000,
  /** The newsroom's peak at the edge, where instances are counted. */
  viewsPerS: 3_000,
  /** Origin Shield's price per 10,000 requests in Europe (eu-west-1), USD: CloudFront's pricing page as this is written. */
  originShieldPer10kUsd: 0.009,
  /** The purge budgets (EDGE_PURGE_MONTHLY_PATHS) the report tabulates; 0: unlimited. */
  purgeBudgets: [100_000, 300_000, 1_000_000, 3_000_000, 10_000_000, 0],
} as const;

/** Who links to whom, drawn from the seed: each article's section and tags. */
export interface Structure {
  /** Article popularity, by rank (index): sums to 1. */
  articleShare: Float64Array;
  sectionShare: Float64Array;
  tagShare: Float64Array;
  /** Purges per second reaching each page, before batching, per push per second. */
  sectionPushShare: Float64Array;
  tagPushShare: Float64Array;
}

/** Zipf shares over n ranks: k-th ∝ 1/k^s, summing to 1. */
export function zipfShares(n: number, s: number): Float64Array {
  const weights = Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s);
  const total = weights.reduce((sum, w) => sum + w, 0);
  return Float64Array.from(weights, (w) => w / total);
}

/** A draw from shares (summing to 1) by their running sum. */
function picker(shares: Float64Array): (u: number) => number {
  const cumulative = new Float64Array(shares.length);
  let sum = 0;
  for (let i = 0; i < shares.length; i++) {
    sum += shares[i]!;
    cumulative[i] = sum;
  }
  return (u) => {
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > u * sum) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/**
 * The site's structure from the seed: each article's section uniformly (desks file stories of
 * every rank), its tags by the tags' popularity (a popular tag carries more stories), distinct.
 */
export function drawStructure(site: EdgeSite, seed: number): Structure {
  const random = seededRandom(seed);
  const articleShare = zipfShares(site.articles, site.zipf);
  const tagShare = zipfShares(site.tags, site.zipf);
  const pickTag = picker(tagShare);
  const sectionPushShare = new Float64Array(site.sections);
  const tagPushShare = new Float64Array(site.tags);
  const perArticle = Math.min(site.tagsPerArticle, site.tags);
  for (let a = 0; a < site.articles; a++) {
    const section = Math.floor(random() * site.sections);
    sectionPushShare[section] = sectionPushShare[section]! + articleShare[a]!;
    const tags = new Set<number>();
    while (tags.size < perArticle) tags.add(pickTag(random()));
    for (const t of tags) tagPushShare[t] = tagPushShare[t]! + articleShare[a]!;
  }
  return { articleShare, sectionShare: zipfShares(site.sections, site.zipf), tagShare, sectionPushShare, tagPushShare };
}

/**
 * Origin requests per second from one object at one location: requests at `ratePerS`, kept
 * `lifetimeS`, dropped by purges arriving at `purgesPerS`.
 */
export function fetchRate(ratePerS: number, lifetimeS: number, purgesPerS: number): number {
  if (ratePerS <= 0) return 0;
  const servesS = purgesPerS > 0 ? -Math.expm1(-purgesPerS * lifetimeS) / purgesPerS : lifetimeS;
  return ratePerS / (1 + ratePerS * servesS);
}

/** Purge batches per second that touch a page pushed at `pushesPerS`, batched every `batchS`. */
export function purgeBatchRate(pushesPerS: number, batchS: number): number {
  return pushesPerS > 0 ? -Math.expm1(-pushesPerS * batchS) / batchS : 0;
}

export interface EdgeLoad {
  viewsPerS: number;
  /** Origin requests per second, by page type, HTML and JSON together. */
  originPerS: Record<PageType, number>;
  originHtmlPerS: number;
  originJsonPerS: number;
  /** Requests the regional tier (Origin Shield) receives from the edge locations, per second; 0 without one. */
  regionalPerS: number;
  /** Origin requests per 1,000 page views, all types. */
  perThousand: number;
  /** Share of each type's views answered at the edge (not reaching the origin). */
  hit: Record<PageType, number>;
}

/**
 * The origin's load at `viewsPerS` page views per second over `locations` edge locations sharing
 * them evenly; with `regionalCaches`, the edge locations' misses go to that many regional edge
 * caches sharing them evenly, which keep pages for the same lifetime and are purged with them
 * (their requests taken as Poisson too), and only theirs reach the origin.
 */
export function edgeLoad(site: EdgeSite, structure: Structure, regime: EdgeRegime, viewsPerS: number, locations: number, regionalCaches = 0): EdgeLoad {
  const purge = (pushShare: number) => purgeBatchRate(regime.pushesPerS * pushShare, regime.purgeBatchS);
  const originPerS: Record<PageType, number> = { front: 0, section: 0, tag: 0, article: 0 };
  let html = 0;
  let json = 0;
  let regional = 0;
  const pages: Record<PageType, { views: Float64Array; pushShare: (i: number) => number }> = {
    front: { views: Float64Array.of(1), pushShare: () => 1 },
    section: { views: structure.sectionShare, pushShare: (i) => structure.sectionPushShare[i]! },
    tag: { views: structure.tagShare, pushShare: (i) => structure.tagPushShare[i]! },
    article: { views: structure.articleShare, pushShare: (i) => structure.articleShare[i]! },
  };
  for (const type of pageTypes) {
    const { views, pushShare } = pages[type];
    const typeViews = viewsPerS * site.mix[type];
    for (let i = 0; i < views.length; i++) {
      const purgesPerS = purge(pushShare(i));
      // The page's HTML and its /api JSON: two objects at each location, each with its share of the views.
      const perLocation = (typeViews * views[i]!) / locations;
      const lifetimeS = regime.lifetimes[type];
      const tiers = (ratePerS: number) => {
        const fromLocations = locations * fetchRate(ratePerS, lifetimeS, purgesPerS);
        if (regionalCaches === 0) return fromLocations;
        regional += fromLocations;
        return regionalCaches * fetchRate(fromLocations / regionalCaches, lifetimeS, purgesPerS);
      };
      const fromHtml = tiers(perLocation * site.htmlShare);
      const fromJson = tiers(perLocation * (1 - site.htmlShare));
      originPerS[type] += fromHtml + fromJson;
      html += fromHtml;
      json += fromJson;
    }
  }
  const total = pageTypes.reduce((sum, type) => sum + originPerS[type], 0);
  const hit = Object.fromEntries(pageTypes.map((type) => [type, site.mix[type] > 0 ? 1 - originPerS[type] / (viewsPerS * site.mix[type]) : 1])) as Record<
    PageType,
    number
  >;
  return { viewsPerS, originPerS, originHtmlPerS: html, originJsonPerS: json, regionalPerS: regional, perThousand: (1000 * total) / viewsPerS, hit };
}

/**
 * The edge locations (an effective count: views shared evenly) at which the front page, with
 * `regime`'s lifetimes at `viewsPerS`, is answered at the edge for `frontHit` of its views.
 * More locations, fewer requests each, a lower hit ratio: found by bisection. Null when no count
 * of at least one location gives it (the front page read too little for that ratio).
 */
export function calibrateLocations(site: EdgeSite, structure: Structure, regime: EdgeRegime, viewsPerS: number, frontHit: number): number | null {
  const front = (locations: number) =>
    edgeLoad({ ...site, mix: { front: 1, section: 0, tag: 0, article: 0 } }, structure, regime, viewsPerS * site.mix.front, locations).hit.front;
  let lo = 1;
  let hi = 1e7;
  if (front(lo) < frontHit || front(hi) > frontHit) return null;
  for (let i = 0; i < 200 && hi - lo > 1e-6 * lo; i++) {
    const mid = Math.sqrt(lo * hi);
    if (front(mid) > frontHit) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Instances that server-render every page of `load` and answer its /api requests, at 100% CPU (workload.ts's costs). */
export function instancesFor(load: Pick<EdgeLoad, 'originHtmlPerS' | 'originJsonPerS'>, capacity: InstanceCapacity): number {
  const work = (load.originHtmlPerS + load.originJsonPerS * capacity.apiCost) / capacity.ssrPerS;
  let n = Math.max(1, Math.ceil(work - 1e-9));
  for (;;) {
    const served = serveOnInstance(load.originHtmlPerS / n, load.originJsonPerS / n, capacity);
    if (served.shell === 0 && served.shed === 0) return n;
    n += 1;
  }
}

export interface EdgeInput {
  site: EdgeSite;
  seed: number;
  today: EdgeRegime;
  purged: EdgeRegime;
  /** Where the origin's load is counted. */
  viewsPerS: number;
  /** Edge locations; null: calibrated so today's front page is answered at the edge for frontHit of its views at anchorViewsPerS. */
  locations: number | null;
  /** Regional edge caches between the edge locations and the origin; 0: none, every edge location's miss reaches the origin. */
  regionalCaches: number;
  /** The distribution's Origin Shield, when it has one (and it set regionalCaches to 1). */
  originShield?: { region: string; file: string } | null;
  frontHit: number;
  anchorViewsPerS: number;
  capacity: InstanceCapacity;
}

export interface EdgeComparison {
  locations: number;
  calibrated: boolean;
  /** Today's front page at the anchor's rate: the share of its views answered at the edge locations. */
  anchorFrontHit: number;
  today: EdgeLoad;
  purged: EdgeLoad;
  /** Today's origin requests per 1,000 views over the purge-driven lifetimes'. */
  reduction: number;
  instances: { today: number; purged: number };
  /** Each purge budget at the purge-driven regime's pushes, once its burst is spent. */
  budgets: { monthlyPaths: number; delay: BudgetDelay }[];
  /** With regional caches: today's lifetimes with none (the distribution before Origin Shield). */
  todayDirect: EdgeLoad | null;
}

export function compareEdge(input: EdgeInput): EdgeComparison {
  const structure = drawStructure(input.site, input.seed);
  const calibrated = input.locations === null;
  const locations = input.locations ?? calibrateLocations(input.site, structure, input.today, input.anchorViewsPerS, input.frontHit);
  if (locations === null) {
    throw new InputError(
      `no count of edge locations gives today's front page a ${+(input.frontHit * 100).toFixed(1)}% hit ratio at ${input.anchorViewsPerS} views/s: pass --edge-locations`,
    );
  }
  const today = edgeLoad(input.site, structure, input.today, input.viewsPerS, locations, input.regionalCaches);
  const purged = edgeLoad(input.site, structure, input.purged, input.viewsPerS, locations, input.regionalCaches);
  return {
    locations,
    calibrated,
    anchorFrontHit: edgeLoad(input.site, structure, input.today, input.anchorViewsPerS, locations).hit.front,
    today,
    purged,
    reduction: today.perThousand / purged.perThousand,
    instances: { today: instancesFor(today, input.capacity), purged: instancesFor(purged, input.capacity) },
    todayDirect: input.regionalCaches > 0 ? edgeLoad(input.site, structure, input.today, input.viewsPerS, locations) : null,
    budgets: edgeDefaults.purgeBudgets.map((monthlyPaths) => ({
      monthlyPaths,
      delay: budgetDelay({
        monthlyPaths,
        intervalS: input.purged.purgeBatchS,
        maxItems: maxItemsPerCall,
        pathsIn: (seconds) => batchPaths(structure, input.purged.pushesPerS, seconds),
      }),
    })),
  };
}

/**
 * Distinct invalidation paths in one batch that gathered `seconds` of pushes at `pushesPerS`
 * (each purging its article, its section, its tags, the front page and l:all, as
 * server/edge/tags.ts purgeItems does), pushes drawn as the simulator draws them: a page pushed
 * at rate r is in the batch with probability 1 - e^(-r·seconds).
 */
export function batchPaths(structure: Structure, pushesPerS: number, seconds: number): number {
  const reached = (shares: Float64Array) => shares.reduce((sum, share) => sum - Math.expm1(-pushesPerS * share * seconds), 0);
  // front and l:all: in every batch that holds a push.
  const lists = -2 * Math.expm1(-pushesPerS * seconds);
  return lists + reached(structure.articleShare) + reached(structure.sectionPushShare) + reached(structure.tagPushShare);
}
