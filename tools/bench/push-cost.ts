// What one CMS push costs the content layer, in process and without HTTP: every article page's
// content is read once (warm), then for each new story pushed, every page's content is read again.
// The worker's own counters say how many reads went to the store, how many kept answers were
// read again because the push made them stale, and how many article pages' related rankings were
// worked out again or brought up to date from the one before. A store of its own (a copy of the
// run's), so the pushes leave the run's articles as they were. This is the figure the churn
// windows cannot resolve on a host whose speed moves more than the few percent a push costs.
//
// How the CPU is counted (since 2026-11-29, `method: 'paired'`): after a push, the pages are read
// in chunks of pushCostDefaults.chunk, each chunk twice back to back, and the push's extra work is
// the sum over the chunks of the first read's CPU less the second's. What the push made the
// cache do again (a list read from the store, a ranking brought up to date) happens in a page's
// first read; the second finds it done. Each pair is a few milliseconds apart, so a host whose
// speed moves by a third within seconds moves both reads of a pair alike. The method before
// compared a whole pass after a push with the passes around it, 0.2 s apart: on 2026-11-29 its
// pushes read anywhere from -37 to +98 ms on a pass of 205 ms, and its median of 41 read 17,
// 5.5 and -0.8 ms in three runs within the hour; the paired reads of that hour read 7.5 to 9.6 ms
// (medians of 41, each push -8 to +30 ms; docs/benchmarks/2026-11-29-paired.md). The second read
// of a chunk finds its pages in the processor's caches, so a first read costs a little more even
// when nothing changed. Chunks much smaller cost the second reads that: the clock sleeps 1 ms before
// each reading (threadCpuMs), and at 50 pages a chunk the control read +5 ms.
//
// And the method's own control: after each counted push, the same paired reads with nothing
// pushed. Its median is what the method reads where there is nothing to read (the caches' part,
// and whatever of the push's work was left for later, such as collecting its garbage, which
// neither read of a pair pays for alone). The push's figure is not corrected by it.
//
// The first pushes are not counted: their reads pay for the start-up (the major collections of
// what filling the cache promoted, code no warm pass ran), which a worker that has served a
// newsroom for an hour paid long ago.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateArticles, loadConfig, median, openContent, type Article } from '@kiosk/surface';
import { newId } from './churn';

export interface PushCost {
  pushes: number;
  /** Medians over the pushes. */
  storeReads: number;
  rebuilt: number;
  /**
   * Article pages' related rankings (the cache's memos) worked out from scratch and brought up to
   * date from the one before (updatedRanking, where the tags' lists only gained the new story in
   * front), medians over the pushes: absent from results recorded before they were counted.
   */
  rankedAgain?: number;
  rankingsUpdated?: number;
  /**
   * The push's extra CPU on this thread: with `method` 'paired', the pages' first reads after it
   * less their second (the top of this file); without, the pass after it less a pass with nothing
   * changed (results recorded before 2026-11-29).
   */
  extraMs: number;
  /** extraMs of each push, in order: how far apart they are says how far to trust the median. */
  extraMsEach?: number[];
  /** extraMs of each of the first pushes, not counted (they pay for the start-up's collections). */
  warmupExtraMs?: number[];
  /**
   * The control: the same figure after a push of nothing, one after each counted push, median and
   * each; what the method reads where there is nothing to read. Absent in results recorded before
   * it was measured.
   */
  controlExtraMs?: number;
  controlExtraMsEach?: number[];
  /** One pass with nothing changed: the reads of a warm cache, for scale. */
  passMs: number;
  ids: number;
  /** How extraMs was counted: 'paired' reads of each chunk, absent where a pass was compared with the passes around it. */
  method?: 'paired';
  /** Pages per chunk of the paired reads. */
  chunk?: number;
}

/** What threadCpuMs() sleeps on: nothing ever wakes it, so each wait is its whole millisecond. */
const asleep = new Int32Array(new SharedArrayBuffer(4));

/**
 * The CPU this thread has used, in milliseconds: what the passes are timed by, not the wall clock,
 * which also counts the time other processes on the host took the core (the bench's own server,
 * anyone else's tests) and moved a push's few milliseconds by more than they are. Linux brings a
 * running thread's count up to date only at a scheduler tick or when the thread leaves the CPU
 * (read straight, process.threadCpuUsage() moved in steps of about 4 ms here, so each push's
 * figure in steps of 2 ms), so the thread sleeps a millisecond first: read then, it is exact to
 * the microsecond. The process's count is exact too, but it also counts V8's helper threads,
 * whose collections moved a pass by more than a push costs.
 */
export function threadCpuMs(): number {
  Atomics.wait(asleep, 0, 0, 1);
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** A new story as the ingest API takes it, published now, with a newsroom id as the churn steps make them. */
function newStory(template: Article, serial: number, now: Date): Article {
  const stamp = now.toISOString();
  return { ...template, id: newId(now, serial), title: `${template.title} (${serial})`, publishedAt: stamp, updatedAt: stamp };
}

/** Pushes counted by default, pushes before them not counted, and pages per chunk of the paired reads. */
export const pushCostDefaults = { pushes: 41, warmupPushes: 3, chunk: 250 };

/** The CPU of one paired pass: each chunk read twice back to back; the first reads' CPU less the second's, and the second's. */
interface PairedPass {
  extraMs: number;
  warmMs: number;
}

export async function measurePushCost(
  dbPath: string,
  ids: readonly string[],
  { pushes, warmupPushes, chunk = pushCostDefaults.chunk }: { pushes: number; warmupPushes: number; chunk?: number } = pushCostDefaults,
): Promise<PushCost> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-push-cost-'));
  const copy = path.join(dir, 'store.sqlite');
  fs.copyFileSync(dbPath, copy);
  if (fs.existsSync(`${dbPath}-wal`)) fs.copyFileSync(`${dbPath}-wal`, `${copy}-wal`);
  const opened = await openContent({ store: 'sqlite', path: copy }, loadConfig({ NODE_ENV: 'production' }));
  try {
    const { reader, writer, cache } = opened;
    const chunks: (readonly string[])[] = [];
    for (let at = 0; at < ids.length; at += chunk) chunks.push(ids.slice(at, at + chunk));
    const read = async (pages: readonly string[]) => {
      const start = threadCpuMs();
      for (const id of pages) await reader.articleWithTeasers(id);
      return threadCpuMs() - start;
    };
    const paired = async (): Promise<PairedPass> => {
      // The change feed looks at the store once per turn of the event loop, as between requests.
      await new Promise((resolve) => setImmediate(resolve));
      let extraMs = 0;
      let warmMs = 0;
      for (const pages of chunks) {
        const first = await read(pages);
        const second = await read(pages);
        extraMs += first - second;
        warmMs += second;
      }
      return { extraMs, warmMs };
    };
    await paired();
    await paired();
    const templates = [...generateArticles({ published: warmupPushes + pushes, drafts: 0, seed: 4242 })];
    const figures: { storeReads: number; rebuilt: number; rankedAgain: number; rankingsUpdated: number; extraMs: number; passMs: number }[] = [];
    const control: number[] = [];
    for (let serial = 0; serial < warmupPushes + pushes; serial++) {
      const counted = cache.stats();
      const story = newStory(templates[serial]!, serial, new Date());
      await writer!.upsert(story, { modifiedAt: story.updatedAt });
      const pushed = await paired();
      const { loads, rebuilt, memoComputed, memoUpdated } = cache.stats();
      figures.push({
        storeReads: loads - counted.loads,
        rebuilt: rebuilt - counted.rebuilt,
        rankedAgain: memoComputed - counted.memoComputed,
        rankingsUpdated: memoUpdated - counted.memoUpdated,
        extraMs: pushed.extraMs,
        passMs: pushed.warmMs,
      });
      if (serial < warmupPushes) continue;
      // Nothing pushed: the same paired reads.
      const idle = await paired();
      control.push(idle.extraMs);
    }
    const warmup = figures.splice(0, warmupPushes);
    return {
      pushes,
      storeReads: median(figures.map((f) => f.storeReads)),
      rebuilt: median(figures.map((f) => f.rebuilt)),
      rankedAgain: median(figures.map((f) => f.rankedAgain)),
      rankingsUpdated: median(figures.map((f) => f.rankingsUpdated)),
      extraMs: median(figures.map((f) => f.extraMs)),
      extraMsEach: figures.map((f) => f.extraMs),
      warmupExtraMs: warmup.map((f) => f.extraMs),
      controlExtraMs: median(control),
      controlExtraMsEach: control,
      passMs: median(figures.map((f) => f.passMs)),
      ids: ids.length,
      method: 'paired',
      chunk,
    };
  } finally {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
