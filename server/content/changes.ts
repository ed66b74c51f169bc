import type { Article } from '../../src/content';
import type { SectionSlug } from '../../src/sections';
import { describeError, log } from '../log';

// What each store says changed, article by article, so that what is kept over it (the content
// cache, cache.ts, its one subscriber) lets go of what depends on that article and nothing else. Each store's feed is entered from one place, the only code that tells its
// subscribers anything:
// - SQLite (sqlite-changes.ts): catchUp() reads the change log its triggers write. It is
//   reached from poll() (the cache calls it before every read, from one method; at most once per
//   turn of the event loop), from a 250 ms timer while anyone subscribes, and from this
//   connection's own writes (its own commits do not move data_version).
// - PostgreSQL (postgres-feed.ts): arrive() tells each commit once: another writer's by the NOTIFY
//   the LISTEN connection hears, this store's own write when it commits (its NOTIFY is known as
//   its echo and not told again), and "everything" when LISTEN is (re)established, on a timer
//   while it is not in force, and after a bulk write. poll() does nothing.
// - The newsroom API has no feed (store.changes is null): its answers expire by time instead.

/** An article as lists see it: where it is listed, and whether it is listed at all. */
export interface ArticleState {
  section: SectionSlug;
  tags: readonly string[];
  status: Article['status'];
}

/**
 * One article written, unpublished or removed. `now` is null when the row is gone, `was` when it
 * is new. Delivered after the commit, in commit order; a consumer must tolerate hearing of the
 * same change twice (rare: an echo PostgreSQL's writer awaited when its LISTEN connection was replaced).
 */
export interface ArticleChange {
  kind: 'article';
  id: string;
  now: ArticleState | null;
  was: ArticleState | null;
}

/**
 * The feed cannot say what changed (a bulk load, a listener that was away, an outside write):
 * anything may have, so everything kept must be read again.
 */
export interface EverythingChanged {
  kind: 'everything';
}

export type ContentChange = ArticleChange | EverythingChanged;

export type ChangeListener = (change: ContentChange) => void;

export interface ChangeFeed {
  /** Calls `listener` for every change from now on; returns the function that stops it. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * Brings the feed up to date before a read (SQLite looks at its change log here, at most once
   * per turn of the event loop); a no-op where changes are pushed to the worker.
   */
  poll(): void;
}

/** A feed that reports what its store tells it, to every subscriber, in order. */
export class ChangeHub implements ChangeFeed {
  readonly #listeners = new Set<ChangeListener>();

  constructor(private readonly check: () => void = () => undefined) {}

  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  poll(): void {
    this.check();
  }

  emit(change: ContentChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        // One consumer's bug must not keep the change from the others (the content cache among them).
        log.error('a content change listener failed', { ...describeError(error), change: change.kind === 'article' ? change.id : 'everything' });
      }
    }
  }
}

export const everythingChanged: EverythingChanged = Object.freeze({ kind: 'everything' });

/** True when the change touches what readers see: a published article before or after it. */
export function isPublicChange(change: ContentChange): boolean {
  return change.kind === 'everything' || change.now?.status === 'published' || change.was?.status === 'published';
}

/**
 * A row's columns as both change logs carry them (section, tags as JSON text, status); null
 * when the row did not exist on that side of the change.
 */
export function stateOf(section: string | null, tags: string | null, status: string | null): ArticleState | null {
  if (section === null || tags === null || (status !== 'published' && status !== 'draft')) return null;
  return { section: section as SectionSlug, tags: JSON.parse(tags) as string[], status };
}
