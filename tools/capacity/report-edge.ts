// The text report of --edge: the model's inputs, origin requests per 1,000 page views by page
// type, today's lifetimes against the purge-driven ones, and the instances each needs.
import { defaultMonthlyPaths, freePathsPerMonth, monthS, pathPriceUsd } from '@kiosk/surface';
import { span } from './duration';
import { edgeDefaults, pageTypes, type EdgeComparison, type EdgeInput, type EdgeLoad, type EdgeRegime, type PageType } from './edge';
import { count, pct, table } from './report';

/** The target: the purge-driven lifetimes cut the origin's requests per 1,000 views at least this many times. */
export const targetReduction = 5;

const typeLabels: Record<PageType, string> = { front: 'front', section: 'sections', tag: 'tags', article: 'articles' };

const fixed = (n: number) => (n >= 100 ? count(n) : n.toFixed(1));

function lifetimes(regime: EdgeRegime): string {
  const each = pageTypes.map((type) => `${typeLabels[type]} ${span(regime.lifetimes[type])}`).join(', ');
  const purges =
    regime.pushesPerS > 0
      ? `${regime.pushesPerS} push/s, each purging its article, its section, its tags and the front page (with latest), batched every ${span(regime.purgeBatchS)}`
      : 'no purge';
  return `${each}; stale-while-revalidate ${span(regime.staleWhileRevalidateS)}; ${purges}`;
}

function row(label: string, value: (type: PageType) => string, total: string): string[] {
  return [label, ...pageTypes.map(value), total];
}

export function edgeLines(input: EdgeInput, result: EdgeComparison, capacitySources: string[], minSize: number): string[] {
  const { site } = input;
  const perThousand = (load: EdgeLoad) => (type: PageType) => fixed((1000 * load.originPerS[type]) / load.viewsPerS);
  const hit = (load: EdgeLoad) => (type: PageType) => pct(load.hit[type]);
  const cdnHit = (load: EdgeLoad) => 1 - load.perThousand / 1000;
  const met = result.reduction >= targetReduction;
  const header = ['', ...pageTypes.map((t) => typeLabels[t]), 'all'];
  return [
    "Edge lifetimes and purges: the origin's requests with today's lifetimes and with purge-driven ones",
    `  Site (seed ${input.seed}): ${count(site.articles)} articles, ${site.sections} sections, ${site.tags} tags (${site.tagsPerArticle} a story), ` +
      `Zipf popularity s = ${site.zipf}; views: ${pageTypes.map((t) => `${typeLabels[t]} ${pct(site.mix[t])}`).join(', ')}; ` +
      `${pct(site.htmlShare)} page loads (HTML), the rest /api JSON, cached apart`,
    `  Edge locations: ${count(result.locations)} ` +
      (result.calibrated
        ? `(calibrated: today's front page answered at the edge for ${pct(input.frontHit)} of its views at ${count(input.anchorViewsPerS)} views/s; --edge-locations sets it)`
        : `(--edge-locations; today's front page is then answered at the edge for ${pct(result.anchorFrontHit)} of its views at ${count(input.anchorViewsPerS)} views/s, the anchor is ${pct(input.frontHit)})`),
    `  Regional edge caches: ${regionalLine(input)}`,
    `  Today: ${lifetimes(input.today)}`,
    `  Purge-driven: ${lifetimes(input.purged)}`,
    ...capacitySources.map((line) => `  ${line}`),
    '',
    `At ${count(input.viewsPerS)} page views/s at the edge, origin requests per 1,000 page views:`,
    table(header, [
      row('today', perThousand(result.today), fixed(result.today.perThousand)),
      row('purge-driven', perThousand(result.purged), fixed(result.purged.perThousand)),
    ]),
    '',
    'Share of the views that do not reach the origin, by page type:',
    table(header, [row('today', hit(result.today), pct(cdnHit(result.today))), row('purge-driven', hit(result.purged), pct(cdnHit(result.purged)))]),
    '',
    `Purge-driven lifetimes: ${result.reduction.toFixed(1)}× fewer origin requests per 1,000 page views than today ` +
      `(target: at least ${targetReduction}×): ${met ? 'met' : 'not met'}.`,
    ...(result.todayDirect
      ? [
          `Both rows have the same regional cache${input.regionalCaches === 1 ? '' : 's'}. Against today's lifetimes with none (every edge location's miss at the origin` +
            `${input.originShield ? ', the distribution before Origin Shield' : ''}): ${fixed(result.todayDirect.perThousand)} per 1,000 page views, ` +
            `${(result.todayDirect.perThousand / result.purged.perThousand).toFixed(1)}× the purge-driven figure.`,
        ]
      : []),
    `Instances that server-render every page at ${count(input.viewsPerS)} views/s, at 100% CPU: today ${result.instances.today}, ` +
      `purge-driven ${result.instances.purged} (MinSize ${minSize}).`,
    `As --cdn-hit for the fleet's timeline: today ${cdnHit(result.today).toFixed(2)}, purge-driven ${cdnHit(result.purged).toFixed(2)} ` +
      `(npm run capacity -- --cdn-hit ${Math.min(0.99, cdnHit(result.purged)).toFixed(2)}).`,
    ...shieldCostLines(input, result),
    '',
    ...budgetLines(input, result),
  ];
}

function regionalLine(input: EdgeInput): string {
  if (input.originShield && input.regionalCaches === 1) {
    return `1, the distribution's Origin Shield (${input.originShield.region}, ${input.originShield.file}): every fetch goes through it, only its misses reach the origin (--regional-caches 0 models none)`;
  }
  if (input.regionalCaches === 0) {
    return input.originShield === null
      ? "none: the distribution has no Origin Shield, every edge location's miss reaches the origin (--regional-caches N puts N between them)"
      : "none modelled (--regional-caches 0): every edge location's miss reaches the origin";
  }
  return `${input.regionalCaches}, sharing the edge locations' misses: only theirs reach the origin`;
}

const usd = (n: number) => (n >= 100 ? `$${count(n)}` : `$${n.toFixed(2)}`);

/** Origin Shield's own bill: each request that reaches it from the edge is charged. */
function shieldCostLines(input: EdgeInput, result: EdgeComparison): string[] {
  if (!input.originShield || input.regionalCaches !== 1) return [];
  const price = edgeDefaults.originShieldPer10kUsd;
  const line = (label: string, load: EdgeLoad) => {
    const perThousand = (1000 * load.regionalPerS) / load.viewsPerS;
    return (
      `  ${label}: ${fixed(perThousand)} per 1,000 page views, ${usd((perThousand * 1000 * price) / 10_000)} per million page views; ` +
      `${usd(((load.regionalPerS * monthS) / 10_000) * price)} a month at ${count(load.viewsPerS)} views/s all month`
    );
  };
  return [
    `Requests reaching Origin Shield from the edge, its own bill, at most (CloudFront's other regional caches answer some first), at $${price} per 10,000 (Europe's rate on CloudFront's pricing page as this is written; check it):`,
    line('today', result.today),
    line('purge-driven', result.purged),
  ];
}

/** What each purge budget does at the purge-driven regime's pushes (server/edge/budget.ts budgetDelay). */
function budgetLines(input: EdgeInput, result: EdgeComparison): string[] {
  const cost = (paths: number) => usd(Math.max(0, paths - freePathsPerMonth) * pathPriceUsd);
  const rows = result.budgets.map(({ monthlyPaths, delay }) => [
    monthlyPaths === 0 ? 'unlimited (0)' : `${count(monthlyPaths)}${monthlyPaths === defaultMonthlyPaths ? ' (default)' : ''}`,
    monthlyPaths === 0 ? '-' : cost(monthlyPaths),
    span(delay.delayS),
    delay.everything ? '"/*"' : `${delay.pathsPerCall.toFixed(1)} tags`,
    count(delay.pathsPerMonth),
    cost(delay.pathsPerMonth),
  ]);
  return [
    `The purge budget (EDGE_PURGE_MONTHLY_PATHS) at ${input.purged.pushesPerS} push/s all month, once its burst (an hour of the budget) is spent: ` +
      `a call when the budget pays for the batch, "/*" when the oldest change would wait past the shortest edge lifetime`,
    table(['budget a month', 'at most', 'a call every', 'each call', 'paths a month', 'their cost'], rows),
  ];
}
