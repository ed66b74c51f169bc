import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import { GcObserver } from './event-loop';
import { Histogram } from './histogram';
import { collectGarbage as collect } from '../../test/heap';
import { waitFor } from '../../test/wait';

test('a major collection is recorded with its duration, and the heap in use after it', async () => {
  const into = { majorGcMs: new Histogram(), heapAfterGcBytes: 0 };
  const observer = new GcObserver(into);
  try {
    collect();
    await waitFor('the forced full collection observed', () => into.majorGcMs.snapshot().count > 0, { everyMs: 10 });
    const { count, maxMs } = into.majorGcMs.snapshot();
    assert.ok(count >= 1, 'the forced full collection was seen');
    assert.ok(maxMs > 0);
    assert.ok(into.heapAfterGcBytes > 0 && into.heapAfterGcBytes <= v8.getHeapStatistics().total_heap_size);
  } finally {
    observer.close();
  }
});
