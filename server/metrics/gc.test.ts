import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';
import { EventLoopDelaySampler, MajorCollections } from './event-loop';
import { Histogram } from './histogram';
import { collectGarbage as collect } from '../../test/heap';
import { waitFor } from '../../test/wait';

/** What perf_hooks saw, as the reference: V8's own report of every collection, by kind. */
function referenceCounts(): { majors: number; minors: number; stop(): void } {
  const seen = { majors: 0, minors: 0, stop: () => observer.disconnect() };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) seen.majors++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) seen.minors++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return seen;
}

/** Short-lived garbage: enough young allocation for scavenges, nothing kept. */
function youngGarbage(): number {
  let sum = 0;
  for (let n = 0; n < 400_000; n++) sum += { n, text: `item ${n}` }.text.length;
  return sum;
}

test('major collections are counted, each with the stall of the interval it ended in, and scavenges are not', async () => {
  const reference = referenceCounts();
  const sampler = new EventLoopDelaySampler(20, 1);
  const into = { majorGcMs: new Histogram(), heapAfterGcBytes: 0 };
  const majors = new MajorCollections(into, sampler);
  try {
    for (let round = 0; round < 3; round++) {
      // Scavenges first, then one full collection, counted before the next.
      for (let n = 0; n < 5; n++) {
        youngGarbage();
        await new Promise((resolve) => setImmediate(resolve));
      }
      const before = into.majorGcMs.snapshot().count;
      collect();
      await waitFor('the full collection counted', () => into.majorGcMs.snapshot().count > before, { everyMs: 5 });
    }
    const counted = into.majorGcMs.snapshot().count;
    await waitFor('the reference saw the collections counted', () => reference.majors >= counted, { everyMs: 5 });
    // V8's gc() can run two in one go (it finishes a marking already under way, then does its
    // own): those count as one, as nothing can run between them.
    assert.ok(counted >= 3 && counted <= reference.majors, `${counted} counted, ${reference.majors} major collections in all`);
    assert.ok(reference.minors > 0, 'the garbage made scavenges, and none was counted');
    // Each is recorded as one of the sampler's window maxima, never above the highest of them.
    assert.ok(into.majorGcMs.snapshot().maxMs <= sampler.windowMaxMs.snapshot().maxMs, 'a collection recorded with a stall no window had');
    assert.ok(into.heapAfterGcBytes > 0 && into.heapAfterGcBytes <= v8.getHeapStatistics().total_heap_size);
  } finally {
    reference.stop();
    majors.close();
    sampler.close();
  }
});

test('after close, a major collection is not counted', async () => {
  const sampler = new EventLoopDelaySampler(20, 1);
  const into = { majorGcMs: new Histogram(), heapAfterGcBytes: 0 };
  const majors = new MajorCollections(into, sampler);
  majors.close();
  try {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(into.majorGcMs.snapshot().count, 0);
  } finally {
    sampler.close();
  }
});
