import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { answerHeaderList, sendPrebuiltAnswer } from './answer';
import type { Config } from './config';
import type { EventLoopDelaySampler } from './metrics/event-loop';
import type { Admission, WorkerMetrics } from './metrics/worker-metrics';
import { classify } from '../src/request-kinds';
import { serveShell, type Shell } from './shell';

// The overload guard. Every request is counted in flight from the moment Node hands it over
// until its response finishes, closes or fails. A page request is not answered at once: it
// waits one turn of the event loop (setImmediate), so the requests that arrived in the same
// read are counted too, and only when its turn to render comes does the guard look at the
// count. A naive counter on a synchronous render never rises above 1, because each request
// is finished before the next one is even parsed.

/** How the guard treats a request: a page (the shell when full), the API (a 503 far over), or anything else (straight through). */
export type GuardedKind = 'page' | 'api' | 'other';

export type OverloadLimits = Pick<Config, 'ssrQueueLimit' | 'crawlerQueueLimit' | 'shedQueueLimit' | 'shedRetryAfterS' | 'ssrMaxEventLoopDelayMs'>;

// Search engines that must keep getting server-rendered pages through a spike. Matching is
// cheap to fake, so it only raises the limit to CRAWLER_QUEUE_LIMIT; it never bypasses the guard.
export const crawlerPattern = /Googlebot|Google-InspectionTool|bingbot|DuckDuckBot|YandexBot|Baiduspider|Applebot|Slurp/i;

/** Only reads are admitted by the guard; what a request is comes from src/request-kinds.ts. */
export function guardedKind(req: IncomingMessage): GuardedKind {
  if (req.method !== 'GET' && req.method !== 'HEAD') return 'other';
  const kind = classify(req.url ?? '/');
  return kind === 'page' || kind === 'api' ? kind : 'other';
}

export class OverloadGuard {
  constructor(
    private readonly limits: OverloadLimits,
    private readonly metrics: WorkerMetrics,
    private readonly eventLoop: Pick<EventLoopDelaySampler, 'delayMs'>,
  ) {}

  /** Reads cached numbers only: O(1), no allocation. */
  decide(req: IncomingMessage): Admission {
    const inFlight = this.metrics.inFlight;
    const { ssrQueueLimit, crawlerQueueLimit, shedQueueLimit, ssrMaxEventLoopDelayMs } = this.limits;
    if (inFlight > shedQueueLimit) return 'shed';
    const loopLagging = ssrMaxEventLoopDelayMs > 0 && this.eventLoop.delayMs > ssrMaxEventLoopDelayMs;
    if (inFlight <= ssrQueueLimit && !loopLagging) return 'ssr';
    if (inFlight <= crawlerQueueLimit && crawlerPattern.test(req.headers['user-agent'] ?? '')) return 'ssr';
    return 'shell';
  }
}

const arrivedAt = Symbol('kiosk.arrivedAt');
type TrackedResponse = ServerResponse & { [arrivedAt]?: number };

/**
 * The worker's request listener: counts, defers page and API requests by one turn, then
 * answers with the shell or a 503 itself — before any framework work — or hands a page to
 * the page renderer and everything else to the Express app.
 */
export function overloadAwareListener(deps: {
  app: RequestListener;
  pages: RequestListener;
  shell: Shell;
  guard: OverloadGuard;
  metrics: WorkerMetrics;
  shedRetryAfterS: number;
}): RequestListener {
  const { app, pages, shell, guard, metrics } = deps;
  const shedBody = Buffer.from('Kiosk is very busy right now. Please try again in a few seconds.\n');
  const shedHeaders = answerHeaderList({
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(shedBody.length),
    'Retry-After': String(deps.shedRetryAfterS),
    'Cache-Control': 'private, no-store',
    'X-Render-Mode': 'shed',
  });

  // One shared function for every response (no closure per request); the arrival time on the
  // response doubles as the "still counted" flag, so finish, close and error release once.
  function release(this: TrackedResponse) {
    const started = this[arrivedAt];
    if (started === undefined) return;
    this[arrivedAt] = undefined;
    metrics.inFlight -= 1;
    metrics.responseMs.record(performance.now() - started);
    metrics.countStatus(this.statusCode);
  }

  function takeTurn(req: IncomingMessage, res: TrackedResponse, kind: GuardedKind) {
    // The client may have gone while it waited; its close already released it.
    if (res[arrivedAt] === undefined || res.destroyed) return;
    const mode = guard.decide(req);
    if (mode === 'shed') {
      metrics.countMode('shed');
      sendPrebuiltAnswer(req, res, 503, shedHeaders, shedBody);
    } else if (kind === 'api') {
      app(req, res);
    } else if (mode === 'shell') {
      metrics.countMode('shell');
      serveShell(shell, req, res);
    } else {
      pages(req, res);
    }
  }

  return (req, res: TrackedResponse) => {
    metrics.count.requests += 1;
    metrics.inFlight += 1;
    if (metrics.inFlight > metrics.inFlightMax) metrics.inFlightMax = metrics.inFlight;
    res[arrivedAt] = performance.now();
    res.on('finish', release);
    res.on('close', release);
    res.on('error', release);
    const kind = guardedKind(req);
    if (kind === 'other') app(req, res);
    else setImmediate(takeTurn, req, res, kind);
  };
}
