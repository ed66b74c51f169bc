// The guard's first stage in process, with plain objects for the request and the response: what
// it does with the event loop's turns. (overload.services.test.ts runs it in a real worker.)
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { WorkerMetrics } from './metrics/worker-metrics';
import { OverloadGuard, overloadGuardStage } from './overload';
import type { Shell } from './shell';
import { turnBudgetMs } from './turns';

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

function pageRequest(): IncomingMessage {
  return { method: 'GET', url: '/', headers: {} } as IncomingMessage;
}

function response(): ServerResponse {
  return Object.assign(new EventEmitter(), { destroyed: false, statusCode: 200 }) as unknown as ServerResponse;
}

test('a backlog of page requests does not hold the event loop: past the turn budget, the rest take the next turns, in order', async () => {
  const metrics = new WorkerMetrics();
  const limits = { ssrQueueLimit: 1000, crawlerQueueLimit: 1000, shedQueueLimit: 1000, shedRetryAfterS: 5 };
  // Every request is admitted to render here (the limits are far above 20), so the shell is never served.
  const stage = overloadGuardStage({ shell: {} as Shell, guard: new OverloadGuard(limits, metrics), metrics, shedRetryAfterS: 5 });
  const perRequestMs = 5;
  const rendered: number[] = [];
  let renderedBeforeTimer = -1;
  let timerFired!: () => void;
  const timer = new Promise<void>((fired) => (timerFired = fired));
  const all = new Promise<void>((done) => {
    for (let i = 0; i < 20; i++) {
      stage(pageRequest(), response(), () => {
        // A timer due at once, set during the first render: it fires when the loop next reaches its timers.
        if (i === 0) {
          setTimeout(() => {
            renderedBeforeTimer = rendered.length;
            timerFired();
          }, 0);
        }
        busyFor(perRequestMs);
        rendered.push(i);
        if (rendered.length === 20) done();
      });
    }
  });
  await Promise.all([all, timer]);
  assert.deepEqual(
    rendered,
    Array.from({ length: 20 }, (_, i) => i),
    'in the order they arrived',
  );
  // In one turn: the budget's worth, plus the one that crossed it. Without a budget, all 20 (100 ms)
  // ran before the timer could fire.
  const mostInOneTurn = Math.ceil(turnBudgetMs / perRequestMs) + 1;
  assert.ok(renderedBeforeTimer <= mostInOneTurn, `a timer waited behind ${renderedBeforeTimer} renders of ${perRequestMs} ms`);
  assert.equal(metrics.inFlight, 20, 'all still counted: none has finished');
});
