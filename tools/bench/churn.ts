// Content churn at capacity: the same step three times, without CMS pushes, with one push a
// second through the ingest API (new articles, corrections of recent ones, updates of old ones,
// as a newsroom sends them during breaking news), and right after the pushes stop. A push that
// cleared every worker's memory would show here as CPU per request and p99 rising during the
// pushes and after them; a cache that drops only what a push touches keeps them level.
//
// Then, below saturation, the same comparison in rounds: without pushes, with them, again and
// again, each round's ratio taken and the median of them judged. One pair of 10 s windows moves
// by ±10% from run to run on a shared 2-core machine, more than the few percent being judged:
// memory-bound work on this host costs up to twice as much CPU time from one second to the
// next (steadiness.ts measures it before the steps). Alternating rounds in one server run share
// its state and the machine's mood, the order within a round alternates too (without pushes
// first in odd rounds, with them first in even ones) so a drift over the rounds favours
// neither, and the median drops a round a neighbour disturbed. Each window starts one pass
// over the ids after its phase began (the warm-up), so a window with pushes measures the pages
// they change being put together again at the rate pushes cause it, and a window without them
// starts after the last push's pages were read again rather than paying for them.
import { randomBytes } from 'node:crypto';
import { generateArticles, median, pathUnder, type Article } from '@kiosk/surface';
import type { StepRecord } from './measure';
import type { ServerUnderTest } from './processes';
import type { Steadiness } from './steadiness';

export interface Push {
  kind: 'new' | 'recent' | 'old';
  id: string;
  status: number;
  /** From the push's answer until the worker served the pushed title; null: not within 5 s. */
  visibleMs: number | null;
}

/** The same rate without pushes and with one a second. */
export interface ChurnPair {
  ratePerS: number;
  steady: StepRecord;
  pushing: StepRecord;
  pushes: Push[];
}

export interface ChurnResult {
  ratePerS: number;
  steady: StepRecord;
  pushing: StepRecord;
  after: StepRecord;
  pushes: Push[];
  /**
   * Rounds without and with pushes at belowCapacityShare of the capacity, measured after the
   * three steps: below saturation, where CPU per request compares the work a request costs
   * rather than what a queue adds to it. Empty or absent: not measured.
   */
  rounds?: ChurnPair[];
  /** The host's steadiness on the server's core right before these steps; absent: not measured. */
  steadiness?: Steadiness;
}

/** Where the rounds of churn steps run: 90% of capacity, below saturation, where CPU per request is the work a request costs. */
export const belowCapacityShare = 0.9;

/**
 * Rounds below saturation unless --churn-rounds says otherwise: the median of three drops one
 * disturbed round (five, which dropped two, cost two minutes of the whole run's twenty).
 */
export const defaultChurnRounds = 3;

/** The server's CPU per request answered, in ms (percent of one core over the window, per answer). */
export function cpuMsPerRequest(step: StepRecord): number {
  return step.achievedPerS > 0 ? (step.serverCpuPct * 10) / step.achievedPerS : Number.NaN;
}

/** `step`'s CPU per request over `of`'s; NaN when `of` cost nothing measurable. */
export function cpuRatio(step: StepRecord, of: StepRecord): number {
  const base = cpuMsPerRequest(of);
  return base > 0 ? cpuMsPerRequest(step) / base : Number.NaN;
}

/** The round's CPU per request with pushes over without. */
export function roundRatio(pair: ChurnPair): number {
  return cpuRatio(pair.pushing, pair.steady);
}

/** The median of the rounds' ratios; NaN for none. */
export function medianRatio(rounds: readonly ChurnPair[]): number {
  return median(rounds.map(roundRatio));
}

/**
 * How far apart the rounds' windows *without* pushes are in CPU per request (the largest over
 * the smallest, minus one): what the same work at the same rate moved by in this run with no
 * push at all, the noise any ratio of the rounds stands in. NaN with fewer than two.
 */
export function steadySpread(rounds: readonly ChurnPair[]): number {
  const costs = rounds.map((r) => cpuMsPerRequest(r.steady)).filter((c) => Number.isFinite(c) && c > 0);
  return costs.length < 2 ? Number.NaN : Math.max(...costs) / Math.min(...costs) - 1;
}

/** A token for this run's servers only: the pushes need ingestion on. */
export const churnToken = randomBytes(24).toString('hex');

const visibleWithinMs = 5_000;

/** What the CMS sends: the article without its id (from the URL) and updated time (the server's). */
function sent(article: Article): Omit<Article, 'id' | 'updatedAt'> {
  const { id: _id, updatedAt: _updatedAt, ...fields } = article; // eslint-disable-line @typescript-eslint/no-unused-vars -- left out on purpose
  return fields;
}

/**
 * One sequence for every pusher of the run: the pair below capacity pushes soon after the steps
 * at capacity, often within the same minute, and a new story must not take an id pushed before.
 */
let serials = 0;

/** Newsroom ids: the publish minute and a serial; these serials are above any the seed uses. */
export function newId(now: Date, serial: number): string {
  const minute = now.toISOString().replace(/\D/g, '').slice(0, 12);
  return `${minute}${String(900_000 + (serial % 100_000)).padStart(6, '0')}`;
}

/**
 * One push a second until stopped, cycling through a new article, a correction of one of the
 * newest stories and an update of any story (`paths`: the run's article paths, /section/id).
 */
export function startPushing(baseUrl: string, paths: readonly string[], onPush: (push: Push) => void): { stop(): Promise<void> } {
  const templates = [...generateArticles({ published: 50, drafts: 0, seed: 4242 })];
  const newest = [...paths].sort((a, b) => (a.split('/')[2]! < b.split('/')[2]! ? 1 : -1)).slice(0, 20);
  let running: Promise<void> = Promise.resolve();

  async function put(id: string, article: Omit<Article, 'id' | 'updatedAt'>, kind: Push['kind']): Promise<void> {
    const response = await fetch(`${baseUrl}${pathUnder('ingest', `articles/${id}`)}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${churnToken}`, 'Content-Type': 'application/json' },
      // Each push is the CMS's newest version of the story: one a second, so never two at one time.
      body: JSON.stringify({ ...article, modifiedAt: new Date().toISOString() }),
      signal: AbortSignal.timeout(visibleWithinMs),
    });
    await response.arrayBuffer();
    const answered = performance.now();
    let visibleMs: number | null = null;
    while (response.ok && performance.now() - answered < visibleWithinMs) {
      const page = await fetch(`${baseUrl}/api/articles/${id}`, { signal: AbortSignal.timeout(visibleWithinMs) });
      if (page.ok && ((await page.json()) as { article: Article }).article.title === article.title) {
        visibleMs = performance.now() - answered;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    onPush({ kind, id, status: response.status, visibleMs });
  }

  async function pushOne(): Promise<void> {
    const serial = serials++;
    const kind = (['new', 'recent', 'old'] as const)[serial % 3]!;
    try {
      await push(serial, kind);
    } catch {
      // A push that failed on the wire counts as failed; the next one goes on.
      onPush({ kind, id: '', status: 0, visibleMs: null });
    }
  }

  async function push(serial: number, kind: Push['kind']): Promise<void> {
    if (kind === 'new') {
      const template = templates[serial % templates.length]!;
      const now = new Date();
      await put(newId(now, serial), { ...sent(template), title: `${template.title} (${serial})`, publishedAt: now.toISOString() }, kind);
      return;
    }
    const path = kind === 'recent' ? newest[serial % newest.length]! : paths[(serial * 7919) % paths.length]!;
    const id = path.split('/')[2]!;
    const current = await fetch(`${baseUrl}/api/articles/${id}`, { signal: AbortSignal.timeout(visibleWithinMs) });
    if (!current.ok) {
      onPush({ kind, id, status: current.status, visibleMs: null });
      return;
    }
    const { article } = (await current.json()) as { article: Article };
    await put(id, { ...sent(article), title: `${article.title.replace(/ \(update \d+\)$/, '')} (update ${serial})` }, kind);
  }

  const timer = setInterval(() => {
    // One at a time: a slow push delays the next rather than piling up.
    running = running.then(pushOne);
  }, 1_000);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** One step with one push a second through it; the pushes are added to `pushes`. */
async function withPushes(server: ServerUnderTest, paths: readonly string[], pushes: Push[], step: () => Promise<StepRecord>): Promise<StepRecord> {
  const pusher = startPushing(`http://127.0.0.1:${server.port}`, paths, (push) => pushes.push(push));
  try {
    return await step();
  } finally {
    await pusher.stop();
  }
}

/** Seconds for one pass over `ids` at `ratePerS`: how long after a push every page it changed has been read again. */
export function passSeconds(ids: number, ratePerS: number): number {
  return Math.ceil(ids / Math.max(1, ratePerS));
}

/**
 * The three steps at `ratePerS` on a warm server started with INGEST_TOKEN=churnToken, then
 * `rounds` pairs at belowCapacityShare of it (after the third step, so the pages the pushes
 * changed have been put together again and the first round starts as warm as the first step).
 * `step`'s warm-up is the bench's own unless `warmupS` is given: the rounds' windows, and the
 * one with pushes at capacity, start a pass over the ids after their phase began.
 */
export async function measureChurn(
  server: ServerUnderTest,
  paths: readonly string[],
  ratePerS: number,
  step: (label: string, ratePerS: number, warmupS?: number) => Promise<StepRecord>,
  rounds = defaultChurnRounds,
): Promise<ChurnResult> {
  const steady = await step('churn: no pushes', ratePerS);
  const pushes: Push[] = [];
  const pushing = await withPushes(server, paths, pushes, () => step('churn: one CMS push a second', ratePerS, passSeconds(paths.length, ratePerS)));
  const after = await step('churn: after the pushes', ratePerS);
  const belowRate = Math.round(ratePerS * belowCapacityShare);
  const share = `${Math.round(belowCapacityShare * 100)}% of capacity`;
  const pass = passSeconds(paths.length, belowRate);
  const pairs: ChurnPair[] = [];
  for (let round = 1; round <= rounds; round++) {
    const of = `round ${round} of ${rounds}, ${share}`;
    const roundPushes: Push[] = [];
    const withoutPushes = () => step(`churn: no pushes, ${of}`, belowRate, pass);
    const withThem = () => withPushes(server, paths, roundPushes, () => step(`churn: one CMS push a second, ${of}`, belowRate, pass));
    // Odd rounds measure without pushes first, even rounds with them first.
    let roundSteady: StepRecord;
    let roundPushing: StepRecord;
    if (round % 2 === 1) {
      roundSteady = await withoutPushes();
      roundPushing = await withThem();
    } else {
      roundPushing = await withThem();
      roundSteady = await withoutPushes();
    }
    pairs.push({ ratePerS: belowRate, steady: roundSteady, pushing: roundPushing, pushes: roundPushes });
  }
  return { ratePerS, steady, pushing, after, pushes, rounds: pairs };
}
