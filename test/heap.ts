// The heap as a test measures it: the collector run by hand (twice: what the first frees can
// leave more to free, weak maps' values among them), so what is counted is what is kept, not
// garbage waiting.
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
/** One full collection, now. */
export const collectGarbage = vm.runInNewContext('gc') as () => void;

/** V8's heap in use, in bytes, right after two full collections. */
export function heapUsedAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return v8.getHeapStatistics().used_heap_size;
}
