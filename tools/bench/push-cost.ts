// What one CMS push costs the content layer, in process and without HTTP: every article page's
// content is read once (warm), then for each new story pushed, every page's content is read again.
// The worker's own counters say how many reads went to the store, how many kept answers were
// read again because the push made them stale, and how many article pages' related rankings were
// worked out again or brought up to date from the one before; the CPU time of that pass over a
// pass with nothing changed (the mean of the ones before and after) is the push's extra work. A
// store of its own (a copy of the run's), so the pushes leave the run's articles as they were. This is the figure the churn windows
// cannot resolve on a host whose speed moves more than the few percent a push costs.
//
// The first pushes are not counted: their passes pay for the start-up (the major collections of
// what filling the cache promoted, code no warm pass ran), which a worker that has served a
// newsroom for an hour paid long ago: the first push's pass took 16–66 ms more in six runs, and
// within the noise in five where a full collection ran before every pass. Each push is measured
// against the passes around it, so what moves the host between pushes cancels; what moves it
// within a pass (a tenth of its 100–200 ms) does not, hence the median of many pushes.
//
// And the method's own control: after each counted push, a "push" of nothing, its passes
// measured the same way (the pass after it against the passes around it). Its median is what the
// method reads where there is nothing to read: on 2026-11-28, with this host's passes moving
// between 102 and 184 ms within seconds, each push of nothing read anywhere from -39 to +48 ms,
// and their medians of 41 read -0.6 to +0.45 ms in four runs, beside 2.7 to 3.1 ms for a push.
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
  /** The pass after a push took this much more of the thread's CPU than one with nothing changed. */
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

/** Pushes counted by default, and pushes before them not counted. */
export const pushCostDefaults = { pushes: 41, warmupPushes: 3 };

export async function measurePushCost(dbPath: string, ids: readonly string[], { pushes, warmupPushes } = pushCostDefaults): Promise<PushCost> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-push-cost-'));
  const copy = path.join(dir, 'store.sqlite');
  fs.copyFileSync(dbPath, copy);
  if (fs.existsSync(`${dbPath}-wal`)) fs.copyFileSync(`${dbPath}-wal`, `${copy}-wal`);
  const opened = openContent({ store: 'sqlite', path: copy }, loadConfig({ NODE_ENV: 'production' }));
  try {
    const { reader, writer, cache } = opened;
    const pass = async () => {
      // The change feed looks at the store once per turn of the event loop, as between requests.
      await new Promise((resolve) => setImmediate(resolve));
      const start = threadCpuMs();
      for (const id of ids) await reader.articleWithTeasers(id);
      return threadCpuMs() - start;
    };
    await pass();
    let before = await pass();
    const templates = [...generateArticles({ published: warmupPushes + pushes, drafts: 0, seed: 4242 })];
    const figures: { storeReads: number; rebuilt: number; rankedAgain: number; rankingsUpdated: number; extraMs: number; passMs: number }[] = [];
    const control: number[] = [];
    for (let serial = 0; serial < warmupPushes + pushes; serial++) {
      const counted = cache.stats();
      const story = newStory(templates[serial]!, serial, new Date());
      await writer!.upsert(story, { modifiedAt: story.updatedAt });
      const pushed = await pass();
      const { loads, rebuilt, memoComputed, memoUpdated } = cache.stats();
      const after = await pass();
      figures.push({
        storeReads: loads - counted.loads,
        rebuilt: rebuilt - counted.rebuilt,
        rankedAgain: memoComputed - counted.memoComputed,
        rankingsUpdated: memoUpdated - counted.memoUpdated,
        extraMs: pushed - (before + after) / 2,
        passMs: (before + after) / 2,
      });
      before = after;
      if (serial < warmupPushes) continue;
      // Nothing pushed: the pass after it measured as the push's was.
      const idle = await pass();
      const next = await pass();
      control.push(idle - (before + next) / 2);
      before = next;
    }
    const warmup = figures.splice(0, warmupPushes);
    const rebuilt = median(figures.map((f) => f.rebuilt));
    const extraMs = median(figures.map((f) => f.extraMs));
    return {
      pushes,
      storeReads: median(figures.map((f) => f.storeReads)),
      rebuilt,
      rankedAgain: median(figures.map((f) => f.rankedAgain)),
      rankingsUpdated: median(figures.map((f) => f.rankingsUpdated)),
      extraMs,
      extraMsEach: figures.map((f) => f.extraMs),
      warmupExtraMs: warmup.map((f) => f.extraMs),
      controlExtraMs: median(control),
      controlExtraMsEach: control,
      passMs: median(figures.map((f) => f.passMs)),
      ids: ids.length,
    };
  } finally {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
