import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { answerPrebuilt, prebuilt } from './answer';
import type { Config } from './config';
import type { Admission, WorkerMetrics } from './metrics/worker-metrics';
import { routeOf, type Route } from '../src/request-kinds';
import { busyJsonBody, busyPolicy } from './response-policy';
import { serveShell, type Shell } from './shell';
import { TurnBudget } from './turns';

// The overload guard, the first stage of the one pipeline (server/app.ts): every request is
// counted in flight from the moment Node hands it over (the app runs this stage in the same
// turn, before any other work) until its response finishes, closes or fails. A page request is not answered at once: it
// waits one turn of the event loop (setImmediate), so the requests that arrived in the same
// read are counted too, and only when its turn to render comes does the guard look at the
// count. A naive counter on a synchronous render never rises above 1, because each request
// is finished before the next one is even parsed.

/** How the guard treats a request: a page (the shell when full), the API (a 503 far over), or anything else (straight through). */
export type GuardedKind = 'page' | 'api' | 'other';

export type OverloadLimits = Pick<Config, 'ssrQueueLimit' | 'crawlerQueueLimit' | 'shedQueueLimit' | 'shedRetryAfterS'>;

// Search engines that must keep getting server-rendered pages through a spike. Matching is
// cheap to fake, so it only raises the limit to CRAWLER_QUEUE_LIMIT; it never bypasses the guard.
export const crawlerPattern = /Googlebot|Google-InspectionTool|bingbot|DuckDuckBot|YandexBot|Baiduspider|Applebot|Slurp/i;

/** Only reads are admitted by the guard; how, the route table says (src/request-kinds.ts, its admission class). */
export function guardedKind(req: IncomingMessage, route: Route): GuardedKind {
  if (req.method !== 'GET' && req.method !== 'HEAD') return 'other';
  return route.admission === 'none' ? 'other' : route.admission;
}

export class OverloadGuard {
  constructor(
    private readonly limits: OverloadLimits,
    private readonly metrics: WorkerMetrics,
  ) {}

  /** Reads cached numbers only: O(1), no allocation. */
  decide(req: IncomingMessage): Admission {
    const inFlight = this.metrics.inFlight;
    const { ssrQueueLimit, crawlerQueueLimit, shedQueueLimit } = this.limits;
    if (inFlight > shedQueueLimit) return 'shed';
    if (inFlight <= ssrQueueLimit) return 'ssr';
    if (inFlight <= crawlerQueueLimit && crawlerPattern.test(req.headers['user-agent'] ?? '')) return 'ssr';
    return 'shell';
  }
}

const arrivedAt = Symbol('kiosk.arrivedAt');
const routed = Symbol('kiosk.route');
type TrackedResponse = ServerResponse & { [arrivedAt]?: number };
/** A request as the pipeline carries it: its entry of the route table, found once by the guard. */
export type RoutedRequest = IncomingMessage & { [routed]?: Route };

/** The request's entry of the route table: the one the guard found, or (before the guard) found now. */
export function routeOfRequest(req: IncomingMessage): Route {
  return (req as RoutedRequest)[routed] ?? routeOf(req.url ?? '/');
}

/** The pipeline's next stage, as Express hands it. */
type Next = (error?: unknown) => void;

/**
 * The pipeline's first stage (server/app.ts puts it before every other): classifies the request
 * by the route table, counts it, defers page and API reads by one turn, then answers with the
 * shell or a 503 itself (built once at start-up: no rendering, no routing) or passes it on to
 * its handler. Page and API reads past the shed limit get the same 503 Nginx gives when no
 * worker has room: JSON for the API, with Retry-After.
 */
export function overloadGuardStage(deps: {
  shell: Shell;
  guard: OverloadGuard;
  metrics: WorkerMetrics;
  shedRetryAfterS: number;
  /** The worker's clock for the turn (the renders share it): one of its own unless given. */
  turns?: TurnBudget;
}): (req: IncomingMessage, res: ServerResponse, next: Next) => void {
  const { shell, guard, metrics } = deps;
  const turns = deps.turns ?? new TurnBudget();
  const shedPage = prebuilt(503, busyPolicy('text', deps.shedRetryAfterS), 'Kiosk is very busy right now. Please try again in a few seconds.\n');
  const shedApi = prebuilt(503, busyPolicy('json', deps.shedRetryAfterS), busyJsonBody);

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

  // A turn of the event loop renders for at most the budget (server/turns.ts): the requests that
  // arrived in one read all take their turns in the same check phase, and past the budget a
  // request waits one more turn, behind the ones that already waited. The in-flight count the
  // guard reads then includes whatever arrived meanwhile.
  function takeTurn(req: IncomingMessage, res: TrackedResponse, next: Next, kind: GuardedKind) {
    // The client may have gone while it waited; its close already released it.
    if (res[arrivedAt] === undefined || res.destroyed) return;
    if (turns.spent()) {
      setImmediate(takeTurn, req, res, next, kind);
      return;
    }
    const mode = guard.decide(req);
    if (mode === 'shed') {
      metrics.countMode('shed');
      answerPrebuilt(req, res, kind === 'api' ? shedApi : shedPage);
    } else if (kind === 'api') {
      next();
    } else if (mode === 'shell') {
      metrics.countMode('shell');
      serveShell(shell, req, res);
    } else {
      next();
    }
  }

  return (req: RoutedRequest, res: TrackedResponse, next: Next) => {
    metrics.count.requests += 1;
    metrics.inFlight += 1;
    if (metrics.inFlight > metrics.inFlightMax) metrics.inFlightMax = metrics.inFlight;
    res[arrivedAt] = performance.now();
    res.on('finish', release);
    res.on('close', release);
    res.on('error', release);
    const route = routeOf(req.url ?? '/');
    req[routed] = route;
    const kind = guardedKind(req, route);
    if (kind === 'other') next();
    else setImmediate(takeTurn, req, res, next, kind);
  };
}
