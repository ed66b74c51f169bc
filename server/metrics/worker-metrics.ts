import { counterNames, type CounterName } from './catalog';
import type { EventLoopDelaySampler } from './event-loop';
import { Histogram } from './histogram';
import type { RenderMode } from '../../src/page-contract';

type EventLoopReadings = Pick<EventLoopDelaySampler, 'delayMs' | 'maxDelayMs' | 'windowMaxMs'>;

/**
 * How the overload guard admitted a request, which the counters count: a document in one of the
 * page contract's render modes (served, or the shell), or shed (the 503). The modes are named
 * once, there.
 */
export type Admission = RenderMode | 'shed';

/**
 * One worker's counters and distributions. Counters and histograms only rise, from the
 * worker's start, and nothing here is ever reset: each reader (the CloudWatch flusher, /metrics,
 * tests) remembers what it last saw and takes differences (server/metrics/totals.ts). Recording
 * is O(1) and allocates nothing. Which counters there are is server/metrics/catalog.ts.
 */
export class WorkerMetrics {
  readonly count: Record<CounterName, number> = Object.fromEntries(counterNames.map((name) => [name, 0])) as Record<CounterName, number>;
  inFlight = 0;
  /** Highest in-flight count since the readers last took it (MetricsLedger.roll). */
  inFlightMax = 0;
  readonly renderMs = new Histogram();
  readonly responseMs = new Histogram();
  /** The sampler's per-window maximum delays, filled on the sampler's timer. */
  readonly eventLoopDelayMs: Histogram;
  /** Each major garbage collection, as the stall of the sampler's window it ended in (server/metrics/event-loop.ts's MajorCollections). */
  readonly majorGcMs = new Histogram();
  /** The V8 heap in use right after the latest major collection: what is live, not garbage waiting. */
  heapAfterGcBytes = 0;

  constructor(private readonly eventLoop: EventLoopReadings = { delayMs: 0, maxDelayMs: 0, windowMaxMs: new Histogram() }) {
    this.eventLoopDelayMs = eventLoop.windowMaxMs;
  }

  countMode(mode: Admission): void {
    this.count[mode] += 1;
  }

  countStatus(status: number): void {
    if (status >= 500) this.count.status5xx += 1;
    else if (status >= 400) this.count.status4xx += 1;
  }
}
