import fs from 'node:fs';
import path from 'node:path';
import type { CacheClass } from '../../src/routes';
import type { ContentChange } from '../content/changes';
import { cacheTagHeaderName, purgeItems } from '../edge/tags';
import { describeError, log } from '../log';
import { copyFileOf, isCopyPath, withoutNonce } from './copy-path';
import type { WriteBudget } from './budget';
import type { ChangeSeen, CopyWritten } from './messages';
import { TagStrings } from './tag-strings';

// A worker's side of the last good copies (docs/overload.md, "The last good page"). After a
// fresh server-rendered 200 page of a kind Nginx may answer from a copy, the worker writes the
// page, without its nonce, to the file Nginx's try_files finds, at most once per path per
// refresh interval (and again once a change has removed its copy), off the request's path,
// within the time budget of budget.ts: each write is timed, and a worker spends at most 1% of
// its CPU time writing while its event loop is busy, up to half of its time while it is idle
// (the rule and its constants at the top of budget.ts and in site.ts). A page over the budget
// is written on a later render.
// Every copy is indexed by the cluster primary (primary.ts), which removes the copies a change
// touches when a worker reports the change.
//
// The ordering that makes "never a story the newsroom took back" hold, which this file must keep:
// - the content cache's mark (server/content/cache.ts) moves with every change the worker has
//   seen and every list it handed a render as it was while reading it again; a page remembers the
//   mark it was rendered under (its generation);
// - in one synchronous step, the worker checks that the mark has not moved (else the copy is
//   dropped: it may show what a change took back), writes and renames the copy into place, and
//   sends the primary the copy's index message: no change can be delivered in between;
// - when the feed delivers a change, the cache moves its mark, then the worker sends the primary
//   the change's purge items.
// So every copy of old content this worker put in place was indexed before this worker's purge
// for the change, and one worker's IPC messages arrive in the order sent: the purge finds it.
// Every worker sends its own purge, so a copy from a worker that saw the change late is removed
// when that worker sees it.

/** The kinds of page a copy is kept of: never a preview, an error, a 404, the shell or a shed answer. */
const copiedKinds: ReadonlySet<CacheClass> = new Set(['front', 'section', 'tag', 'article']);

export interface LastGoodSettings {
  dir: string;
  /** A path is written again at most this often by one worker. */
  refreshMs: number;
  /** Paths remembered with their last write; the oldest forgotten past it. */
  maxRemembered: number;
  /** The time the writes may take (budget.ts): a page over it is written on a later render. */
  budget: Pick<WriteBudget, 'allows' | 'timed'>;
}

/** Sends to the primary; null when there is no primary to index a copy (no IPC channel). */
export type SendToPrimary = ((message: CopyWritten | ChangeSeen) => void) | null;

/** A rendered page as the writer is given it. */
export interface RenderedPage {
  path: string;
  cache: CacheClass;
  canonicalPath: string | null;
  /** The answer's body as sent: the page's UTF-8 bytes (written to disk from them, not encoded again). */
  body: Buffer;
  nonce: string;
  headers: Readonly<Record<string, string>>;
}

export class LastGoodWriter {
  /** Each path this worker wrote, when, and the tags it carried: the oldest first. */
  readonly #written = new Map<string, { at: number; tags: readonly string[] }>();
  readonly #tagStrings = new TagStrings();
  written = 0;

  constructor(
    private readonly settings: LastGoodSettings,
    private readonly send: () => SendToPrimary,
    /** The content cache's mark (ContentCache.mark): moves with every change, and every list handed out as it was. */
    private readonly mark: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The generation a render starts under (the content's mark then): pass it back to `afterAnswer`. */
  get generation(): number {
    return this.mark();
  }

  /**
   * The feed delivered a change (the content's mark has moved already, so no render begun before
   * it is copied): later copies are of the new content, and the primary removes the old. The
   * paths whose copies that removes are due again (only those: rewriting every path after every
   * push would cost a write per page read).
   */
  changed(change: ContentChange): void {
    const items = purgeItems(change);
    this.#forget(items);
    if (items.length > 0) this.send()?.({ kiosk: 'last-good:changed', items });
  }

  /** After the answer is sent: writes a copy of `page` if it is one to keep and its path is due. */
  afterAnswer(page: RenderedPage, generation: number): void {
    const tags = this.#due(page);
    if (tags === null) return;
    this.#written.delete(page.path);
    this.#written.set(page.path, { at: this.now(), tags });
    this.#forgetOldest();
    setImmediate(() => this.#write(page, tags, generation));
  }

  /** The page's tags when a copy is due, else null. */
  #due(page: RenderedPage): string[] | null {
    // Asked after every page answered: the cheapest refusals first (a path written lately is the
    // usual one), the file's path only at the write.
    if (!copiedKinds.has(page.cache)) return null;
    const last = this.#written.get(page.path);
    if (last !== undefined && this.now() - last.at < this.settings.refreshMs) return null;
    if (page.path !== page.canonicalPath || !isCopyPath(page.path) || this.send() === null || !this.settings.budget.allows()) return null;
    const tags = this.#tagStrings.of(page.headers[cacheTagHeaderName]);
    // A page with no tags could not be removed by a change: no copy of it.
    return tags.length === 0 ? null : tags;
  }

  /** Forgets the writes a change's purge items reach ("/*": all). */
  #forget(items: readonly string[]): void {
    if (items.includes('/*')) {
      this.#written.clear();
      return;
    }
    const tags = new Set(items.map((item) => item.slice(1)));
    for (const [pagePath, write] of this.#written) if (write.tags.some((tag) => tags.has(tag))) this.#written.delete(pagePath);
  }

  #forgetOldest(): void {
    for (const key of this.#written.keys()) {
      if (this.#written.size <= this.settings.maxRemembered) return;
      this.#written.delete(key);
    }
  }

  /**
   * One synchronous step (see the top of this file): the generation check, the write to a
   * temporary file, the rename and the index message, in one tick. Synchronous because it is
   * cheaper: the same write through the thread pool cost about twice the CPU (docs/overload.md).
   */
  #write(page: RenderedPage, tags: string[], generation: number): void {
    const send = this.send();
    // Checked again here: the writes queued in one tick were all admitted before any was timed.
    if (generation !== this.mark() || send === null || !this.settings.budget.allows()) {
      // Not written: the path is due again on its next render.
      this.#written.delete(page.path);
      return;
    }
    const file = copyFileOf(this.settings.dir, page.path)!;
    const temp = path.join(path.dirname(file), `.index.html.${process.pid}.tmp`);
    // Timed, the index message with the write: the budget's figure is what a copy costs the
    // worker (the primary's side of the message is its own). mkdirSync is kept for a directory
    // made before: skipping it measured no cheaper (about 4 µs of an 80–450 µs write on ext4,
    // docs/overload.md).
    const failed = this.settings.budget.timed(() => {
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
        fs.writeFileSync(temp, withoutNonce(page.body, page.nonce), { mode: 0o644 });
        fs.renameSync(temp, file);
      } catch (error) {
        return error;
      }
      send({ kiosk: 'last-good:copied', path: page.path, tags, at: this.now() });
      return null;
    });
    if (failed !== null) {
      // A full disk, say: this copy is skipped, the page was answered anyway.
      log.warn('last good copy not written', { path: page.path, ...describeError(failed) });
      fs.rmSync(temp, { force: true });
      this.#written.delete(page.path);
      return;
    }
    this.written += 1;
  }
}

/** The IPC channel to the cluster primary, while it is connected. */
export function primaryChannel(): SendToPrimary {
  if (typeof process.send !== 'function' || !process.connected) return null;
  return (message) => process.send!(message);
}
