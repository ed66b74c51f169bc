import cluster from 'node:cluster';
import fs from 'node:fs';
import type { Config } from '../config';
import { describeError, log } from '../log';
import { CopyIndex } from './copy-index';
import { copyFileOf, pagesDir } from './copy-path';
import { isLastGoodMessage, type LastGoodMessage } from './messages';

// The cluster primary's side of the last good copies: the one index (copy-index.ts) of every copy
// the workers wrote, fed by their IPC messages (writer.ts), and the only code that removes copies.
// - A change a worker reports removes every copy carrying one of its tags, at once (unlink).
// - Every sweep (at most 10 s apart) removes the copies older than LAST_GOOD_SECONDS, then the
//   oldest past LAST_GOOD_MAX_COPIES (which add() also enforces on every write).
// - At start the directory is emptied: copies this index does not know of could never be purged.
// A worker that exits leaves its copies indexed here, so a later change still removes them.

export interface LastGoodCounts {
  written: number;
  purged: number;
  swept: number;
  /** Copies on disk now, as indexed. */
  readonly onDisk: number;
}

export interface LastGoodPrimary extends LastGoodCounts {
  close(): void;
}

const maxSweepIntervalMs = 10_000;

/** Starts the index and empties the directory; null when no directory is set. Call before the first fork. */
export function startLastGoodPrimary(config: Pick<Config, 'lastGoodDir' | 'lastGoodSeconds' | 'lastGoodMaxCopies'>): LastGoodPrimary | null {
  const dir = config.lastGoodDir;
  if (dir === null) return null;
  emptyDirectory(dir);
  const index = new CopyIndex();
  const counts = { written: 0, purged: 0, swept: 0 };
  const remove = (paths: string[]) => {
    for (const pagePath of paths) unlinkQuietly(copyFileOf(dir, pagePath));
    return paths.length;
  };
  const onMessage = (_worker: unknown, message: unknown) => {
    if (!isLastGoodMessage(message)) return;
    handle(message);
  };
  const handle = (message: LastGoodMessage) => {
    if (message.kiosk === 'last-good:changed') {
      counts.purged += remove(index.purge(message.items));
      return;
    }
    if (copyFileOf(dir, message.path) === null) return;
    counts.written += 1;
    counts.swept += remove(index.add(message.path, message.tags, message.at, config.lastGoodMaxCopies));
  };
  cluster.on('message', onMessage);
  const sweepEveryMs = Math.max(500, Math.min(maxSweepIntervalMs, (config.lastGoodSeconds * 1000) / 2));
  const timer = setInterval(() => {
    const { aged, overCap } = index.sweep(Date.now() - config.lastGoodSeconds * 1000, config.lastGoodMaxCopies);
    counts.swept += remove(aged) + remove(overCap);
  }, sweepEveryMs).unref();
  log.info('last good copies', { dir, maxAgeS: config.lastGoodSeconds, maxCopies: config.lastGoodMaxCopies, on: config.lastGoodSeconds > 0 });
  return {
    get written() {
      return counts.written;
    },
    get purged() {
      return counts.purged;
    },
    get swept() {
      return counts.swept;
    },
    get onDisk() {
      return index.size;
    },
    close() {
      clearInterval(timer);
      cluster.off('message', onMessage);
    },
  };
}

/** Empties the copies' directory (creating it if missing), mode 0755 so Nginx's user can read it. */
function emptyDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.rmSync(pagesDir(dir), { recursive: true, force: true });
  fs.mkdirSync(pagesDir(dir), { mode: 0o755 });
}

function unlinkQuietly(file: string | null): void {
  if (file === null) return;
  try {
    fs.unlinkSync(file);
  } catch (error) {
    // Already gone (a write that failed after being indexed): nothing to remove.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('last good copy not removed', { file, ...describeError(error) });
  }
}
