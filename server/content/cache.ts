import { LRUCache } from 'lru-cache';
import { serializeState } from '../../src/page-contract';
import { isPublicChange, type ArticleState, type ChangeFeed, type ContentChange } from './changes';
import { ContentUnavailable, StoreFailures } from './failure';
import { deepFreeze } from './freeze';
import { PublishedIds } from './published-ids';
import { listKey } from './store';

// The one place a worker keeps content between requests. The rule, written here and only here
// (other files point to it):
//
// - What is kept, each entry under a key with what it depends on (its dependencies, filed in one
//   index by article id and list name):
//   - answers a store read (reader.ts): an article, as its JSON text (one string, not the object
//     graph a parse gives: one object to the garbage collector instead of dozens, and each
//     request parses its own copy, a few µs), depending on that article; a list's newest teasers,
//     the trending tags, a page of a list behind a cursor, each depending on its list down to the
//     oldest id it holds; the most-read ranking, which depends on nothing the feed says (views
//     are not in it) and is read again after mostReadFreshMs;
//   - rendered pages, when the breaking-news cache is on (server/page-cache.ts, keepPage): a
//     page depends on what every answer it was put together from depends on, and expires after
//     PAGE_CACHE_TTL_MS;
//   - on an entry, what memo() worked out from it and other entries (an article's related
//     stories, ranked from its tags' lists: article-teasers.ts), as numbers, never an object of
//     another entry, and saying itself which reads it was worked out from (each list read has a
//     version); handed out while those are the reads kept, and when one was read again, brought
//     up to date from the memo before where its maker can show the result is what working it out
//     again gives (a list that only gained new stories in front: each list read says which
//     earlier reads it extends, KeptList.since), else worked out again; one slot of the entry,
//     dropped with it, its numbers a view of a few Int32Arrays kept here (MemoNumbers), taken
//     back when the entry goes; not frozen (the one thing kept here that is not): it is numbers
//     read by the function that made it (pageTeasers), never handed to a request, and V8 reads a
//     frozen array's elements on a slower path (bringing a ranking up to date took 2.0 µs
//     frozen, 1.0 µs not; a push brings ~1,400 of them up to date);
//   - beside the entries, which ids are published articles (published-ids.ts, the view beacons'
//     check): a set read whole once and kept current by the same changes; about 70 bytes an id,
//     bounded by the articles there are, never evicted.
// - What drops an entry: the store's change feed, the one way in. This cache is its one
//   subscriber (and asks it to catch up before every read, from #catchUp); what a worker keeps of
//   content outside its memory, the last good copies on disk (server/last-good/, with their own
//   ordering rule), follows the changes from here (follow()), each told after this cache has
//   dropped what the change touches. A change drops exactly
//   the entries with a dependency the changed article falls in, before or after the change (and
//   tells the published ids). "Everything changed" drops every entry to stale (the published ids
//   are read again). A store that cannot say what changed (the newsroom API) has its answers
//   expire after freshMs instead.
// - What a list's entry went stale for: while every change that reached it put an article into
//   its one list (published, or retagged into it), the entry remembers those articles
//   (enteredSince); any other change (one that left the list, an edit of a listed article,
//   "everything") forgets them. Its next read (reader.ts, headsFromFront) then reads only those
//   articles, each newer than everything the head held, and puts them in front of it: what
//   reading the list whole would give, at one article's read instead of a list's (a new story
//   entered six lists, and their three reads of 51 rows each took 2.4–3.2 ms of a push's CPU).
// - While a list a change dropped is read again: the first reader after the change waits for that
//   read (an editor who reloads after a push sees it), and a reader who comes while it is in
//   flight is handed the version it replaces, marked not fresh, instead of waiting on it (a list's
//   entry only, an answer that depends on lists alone, kept within staleMs; never an article,
//   whose readers wait: an unpublished story is never shown from here). Without it, every page
//   that shows the list waited on one store read, hundreds when the worker was busy, and went on
//   at once when it answered (docs/performance.md). What was put together from such a version
//   cannot be vouched for: the cache's mark moves with each such hand-out as with each change,
//   and a render that saw the mark move is neither kept as a page (keepPage) nor copied to disk
//   (server/last-good/writer.ts), and its answer gets the shell's short edge lifetime
//   (server/pages.ts), so no edge keeps it past a purge already sent.
// - The bound: maxBytes of V8 heap, counted per entry by heapBytes() as V8 lays the value out (a
//   string's characters at one or two bytes each, plus each object's and array's slots), and
//   maxEntries, answers and pages together; the least recently read go first.
// - Identity: everything handed out is frozen and shared by every request until a change. The
//   JSON text of a kept object is kept beside it (jsonOf), so a page's embedded state writes a
//   teaser or an article once per change, not once per request (server/state-json.ts). That
//   memo relies on an object handed out staying the object it was, which freezing guarantees;
//   it lives here and nowhere else. A request's own parse of a kept article carries its text on
//   itself (parsedWithJson), not in the memo: it is not kept, and no copy of it inherits the text.
//   A story's teaser is one object in every list that holds it while its text is the same
//   (sharedWithJson): held weakly by id here, kept alive by those lists only, so it goes with the
//   last of them. The bound counts it in each list that holds it (more than the heap it takes).
//   Neither the texts' memo nor the teasers by id keeps anything alive by itself.
//
// Also where a failing store's reads are handled: readers of one key share one read; when the
// store fails, a kept answer stands in for up to staleMs, else ContentUnavailable (the short
// 503); after an outage the store is left alone for backoffMs; failures are logged through the
// store's StoreFailures (failure.ts), at most once a second. A page is kept only when every
// answer it was put together from was current and no change came meanwhile. Writes, sign-ups,
// drafts and preview revocations never come here: they go to the store, their failures mapped
// by the same StoreFailures (open.ts, reader.ts). lru-cache's fetch() has single flight and
// stale-on-error too, but a read it has started cannot be told that a change arrived meanwhile:
// here a reader that comes after a change never joins a read that began before it, and that
// read's answer is kept as stale.

/** What a kept answer depends on: the changes that make it stale. */
export type Dependency =
  | { article: string }
  /**
   * The newest articles of a list (cache keys of server/content/store.ts's listKey) down to
   * `from`, or the whole list when `from` is null (it was not full); only those older than
   * `below` for a page behind a cursor.
   */
  | { list: string; from: string | null; below?: string };

export interface ContentCacheOptions {
  /** How logs name the store: "<name> failed". */
  name: string;
  isOutage(error: unknown): boolean;
  /** The store's change feed: the one way changes reach what is kept. */
  changes?: ChangeFeed;
  /** Reads every published article's id: given, the cache keeps that set too (`published`). */
  publishedIds?: () => Promise<string[]>;
  maxEntries: number;
  /** The bound in V8 heap bytes, as heapBytes() counts them. */
  maxBytes: number;
  /** Kept answers younger than this stand in when the store fails. */
  staleMs: number;
  /** Answers older than this are read again: Infinity where a change feed says when. */
  freshMs: number;
  /** After an outage, how long to answer from what is kept without asking the store. */
  backoffMs: number;
  /** Milliseconds on a monotonic clock (tests pass their own). */
  now?: () => number;
  /** Where failures are logged: the one per store that its writes share (one made here if not given). */
  failures?: StoreFailures;
}

/** An answer, and whether it can be trusted until the next change (false for a stand-in). */
export interface Kept<T> {
  readonly value: T;
  readonly fresh: boolean;
}

/**
 * What the cache counts, as the worker's metrics name them (server/metrics/catalog.ts): reads
 * it sent to the store (one statement each, however many keys), kept answers read again
 * because a change made them stale (what a push costs), and lists handed out as they were while
 * read again. All only rise.
 */
export interface ContentCounts {
  contentStoreReads: number;
  contentRebuilt: number;
  /** Lists handed out as they were before a change while read again (the rule at the top of this file). */
  contentPreviousServed: number;
}

type Settled<T> = { kept: Kept<T> | null } | { error: unknown };

/**
 * One kept answer. Every field holds a pointer or a small integer, never a fraction or Infinity:
 * V8 keeps a field that ever held such a number in a box of its own, one more object per entry
 * for every major collection to mark (two per entry, 20,000 over the 10,000 articles, before
 * storedAt and maxAgeMs were whole milliseconds; docs/benchmarks/2026-11-28-entry-objects.md).
 */
interface Entry {
  readonly value: unknown;
  /**
   * When it was kept, in whole milliseconds of #now rounded up (a small integer for V8 for 24 days
   * of a worker's life): an answer is dropped by age no sooner than its bound says, at most 1 ms later.
   */
  readonly storedAt: number;
  /** The epoch its read began in: a read begun earlier never replaces it. */
  readonly epoch: number;
  /** What drops it, each filed in the dependency index: none for what only time drops. */
  readonly depends: Depends;
  /** Read again once this many whole milliseconds old, whatever the feed says (a ranking the feed cannot speak for); -1: only a change drops it. */
  readonly maxAgeMs: number;
  fresh: boolean;
  /**
   * What memo() worked out from it: one slot, set from the first read on (undefined until a memo
   * is asked for) so that every entry has one shape for V8.
   */
  memo: unknown;
  /**
   * The articles that entered the one list it depends on since it was kept, while every change
   * that reached it was one of those (enteredSince): empty while none did; undefined once any
   * other change reached it (one that left, an edit of a listed article, "everything").
   */
  entered: readonly string[] | undefined;
}

/** What an entry kept since no change reached has entered it: one shared empty list. */
const noneEntered: readonly string[] = Object.freeze([]);

/** The lists an article in `state` is listed in, as the dependency index names them (store.ts's listKey). */
function listsOf(state: ArticleState | null): string[] {
  if (state?.status !== 'published') return [];
  return [listKey('all'), listKey({ section: state.section }), ...state.tags.map((tag) => listKey({ tag }))];
}

/** Whether `depends` is one list's newest down to some id (a list's head, or what has its shape): what entering can be told of. */
function oneList(depends: Depends, list: string): boolean {
  return (
    depends !== null && typeof depends !== 'string' && !Array.isArray(depends) && 'list' in depends && depends.list === list && depends.below === undefined
  );
}

interface Pending<T> {
  readonly epoch: number;
  readonly promise: Promise<T>;
}

/** Beside an entry's value: the entry itself, its slots in lru-cache and the dependency index, a memo of ids. */
const entryOverheadBytes = 256;
// Any character past U+00FF: V8 then stores the whole string at two bytes a character.
const twoByte = /[\u0100-\uffff]/;

/**
 * The V8 heap a value takes, as its layout goes on 64-bit V8 with pointer compression off (what
 * Node ships): a header per object, a slot per property or element, a string's characters at
 * one byte each, or two when any is past U+00FF. An estimate, within tens of percent of what a
 * heap snapshot says; the memory test holds the cache's bound against the real heap.
 */
export function heapBytes(value: unknown): number {
  if (typeof value === 'string') return 24 + (twoByte.test(value) ? 2 * value.length : value.length);
  if (value === null || typeof value !== 'object') return 0;
  if (value instanceof Map) {
    let bytes = 48 + 24 * value.size;
    for (const [key, item] of value) bytes += heapBytes(key) + heapBytes(item);
    return bytes;
  }
  if (ArrayBuffer.isView(value)) return 64 + value.byteLength;
  if (Array.isArray(value)) {
    let bytes = 32 + 8 * value.length;
    for (const item of value) bytes += heapBytes(item);
    return bytes;
  }
  const keys = Object.keys(value);
  let bytes = 24 + 8 * keys.length;
  for (const key of keys) bytes += heapBytes((value as Record<string, unknown>)[key]);
  return bytes;
}

/** What keeping `value` under a key costs: its heap bytes and the entry's own. */
export function entryBytes(value: unknown): number {
  return entryOverheadBytes + heapBytes(value);
}

const jsonOfObject = new WeakMap<object, string>();

/**
 * The JSON text (as serializeState writes it, safe inside a script element) of an object this
 * cache handed out or parsed for a request: undefined for anything else.
 */
export function jsonOf(value: object): string | undefined {
  return (value as { [parsedFrom]?: string })[parsedFrom] ?? jsonOfObject.get(value);
}

/**
 * Where a request's own parse of a kept text carries that text: a property, which goes with its
 * object. Not in the WeakMap: an entry there per request made V8 build the map's table again
 * every few thousand requests, 128 KB each time, straight into the old generation
 * (docs/benchmarks/2026-11-28-weakmap.md). Not enumerable, so a copy (a spread, immer's) does
 * not inherit it: a copy that changed a field is written afresh.
 */
const parsedFrom = Symbol('parsedFrom');

/** A request's own parse of `text` (a kept article's JSON), which carries the text it came from (jsonOf). */
export function parsedWithJson<T extends object>(text: string): T {
  const value = JSON.parse(text) as T;
  Object.defineProperty(value, parsedFrom, { value: text });
  return value;
}

/** Remembers `text` as the JSON of `value`, which must never change: a frozen object this cache hands out. */
export function keepJson<T extends object>(value: T, text: string): T {
  jsonOfObject.set(value, text);
  return value;
}

/**
 * The one frozen object kept for each story's teaser, by id, held weakly: the lists that hold it
 * keep it alive, and when none does, the garbage collector takes it and then its slot here. A
 * story is in several lists at once (everything, its section, each of its tags: 5,001 teasers
 * kept for 1,691 stories over the seeded articles), and each list read made its own copy, about
 * eleven objects for every major collection to mark (docs/benchmarks/2026-11-28-entry-objects.md).
 */
const teaserById = new Map<string, WeakRef<object>>();
const forgetTeaser = new FinalizationRegistry<string>((id) => {
  if (teaserById.get(id)?.deref() === undefined) teaserById.delete(id);
});

/** How many stories have a teaser kept (sharedWithJson), for tests. */
export function sharedTeasers(): number {
  return teaserById.size;
}

/**
 * `row` frozen with its JSON `text` (jsonOf), as the cache keeps it: the object already kept for
 * the same story where that one's text is `text` (same fields, same values, same order), else
 * `row` itself, which is then the one kept.
 */
export function sharedWithJson<T extends { readonly id: string }>(row: T, text: string): T {
  const kept = teaserById.get(row.id)?.deref() as T | undefined;
  if (kept !== undefined && jsonOf(kept) === text) return kept;
  const made = keepJson(deepFreeze(row), text);
  teaserById.set(row.id, new WeakRef(made));
  forgetTeaser.register(made, row.id);
  return made;
}

/** Freezes `items` and remembers each one's JSON text: a list every page that shows it shares (each teaser the one kept for its story: sharedWithJson). */
export function frozenWithJson<T extends object>(items: T[]): readonly T[] {
  items.forEach((item, i) => {
    const text = serializeState(item);
    const id = (item as { id?: unknown }).id;
    items[i] = typeof id === 'string' ? (sharedWithJson(item as T & { id: string }, text) as T) : keepJson(deepFreeze(item), text);
  });
  return Object.freeze(items);
}

function covers(depends: Dependency, id: string): boolean {
  if ('article' in depends) return depends.article === id;
  return (depends.from === null || id >= depends.from) && (depends.below === undefined || id < depends.below);
}

/**
 * An entry's dependencies as kept: an article's answer as the article's id alone (the string its
 * index entry already holds: no object per article), another answer's one (or none) as it is, a
 * page's in an array. Not an array of one per answer: over 10,000 articles those arrays were
 * 20,000 objects to collect.
 */
type Depends = string | Dependency | readonly Dependency[] | null;

/** `depends` as the cache keeps it (see Depends). */
function keptDepends(depends: Dependency | readonly Dependency[] | null): Depends {
  return depends !== null && !Array.isArray(depends) && 'article' in depends ? (depends as { article: string }).article : depends;
}

function dependencies(depends: Depends): readonly Dependency[] {
  if (typeof depends === 'string') return [{ article: depends }];
  return depends === null ? [] : Array.isArray(depends) ? depends : [depends as Dependency];
}

/** `ms` (Infinity: no bound) as an entry keeps it: whole milliseconds, -1 for no bound (0 stays 0: never current). */
function maxAgeOf(ms: number): number {
  return ms === Number.POSITIVE_INFINITY ? -1 : Math.ceil(ms);
}

/** Whether a change of article `id` in `list` reaches any of `depends`. */
function coversIn(depends: Depends, list: string, id: string): boolean {
  return dependencies(depends).some((one) => 'list' in one && one.list === list && covers(one, id));
}

/**
 * What one page's render read (server/page-cache.ts): the keys of the entries it was put
 * together from, and the epoch it began in. See keepPage.
 */
export interface PageReads {
  readonly epoch: number;
  readonly keys: Set<string>;
  /** False once the render was handed an answer not fresh (a list's version before a change): then not kept. */
  vouched: boolean;
}

/** The reads reader.ts makes: the cache itself, or a view of it that notes a page's keys (noting()). */
export type CacheReads = Pick<ContentCache, 'get' | 'readMany' | 'fresh' | 'memo' | 'previous' | 'enteredSince'>;

/** Names → the keys filed under each: one key as itself (an article's one entry), more as a set. */
type Index = Map<string, string | Set<string>>;

function add(index: Index, name: string, key: string): void {
  const keys = index.get(name);
  if (keys === undefined || keys === key) index.set(name, key);
  else if (typeof keys === 'string') index.set(name, new Set([keys, key]));
  else keys.add(key);
}

function remove(index: Index, name: string, key: string): void {
  const keys = index.get(name);
  if (keys === key) index.delete(name);
  else if (typeof keys !== 'string' && keys !== undefined) {
    keys.delete(key);
    if (keys.size === 0) index.delete(name);
  }
}

function keysIn(index: Index, name: string): Iterable<string> {
  const keys = index.get(name);
  return keys === undefined ? [] : typeof keys === 'string' ? [keys] : [...keys];
}

/** Where a memo's numbers come from (memo()): `length` zeros as an Int32Array. */
export type NumberRoom = (length: number) => Int32Array;

/** Numbers of a memo nothing keeps: an Int32Array of its own. */
export const ownNumbers: NumberRoom = (length) => new Int32Array(length);

/**
 * Where the numbers of the memos kept on entries live (an article page's related ranking,
 * article-teasers.ts): views of a few Int32Arrays of chunkInts numbers each, every view handed
 * out by take() and given back (give()) when its entry goes or its memo is worked out again, then
 * handed out again for the next memo of the same length. One object per memo whose numbers the
 * garbage collector does not visit: 10,000 rankings as arrays were 20,000 objects and 3.4 MB of
 * slots that every major collection marked (docs/performance.md, "Where the stalls come from").
 * Never shrinks: it holds as many views as memos were kept at once, bounded by the entries.
 */
class MemoNumbers {
  static readonly chunkInts = 64 * 1024;
  #chunk = new Int32Array(0);
  #top = 0;
  /** The buffers of the chunks: a view of one of them is this room's. */
  readonly #chunks = new Set<ArrayBufferLike>();
  /** Views given back, by length. */
  readonly #free = new Map<number, Int32Array[]>();
  /** Views made from the chunks. */
  #made = 0;

  /** `length` zeros: a view given back before, or a new one. */
  readonly take: NumberRoom = (length) => {
    const reused = this.#free.get(length)?.pop();
    if (reused !== undefined) return reused.fill(0);
    if (length > MemoNumbers.chunkInts) return ownNumbers(length);
    if (this.#top + length > this.#chunk.length) {
      this.#chunk = new Int32Array(MemoNumbers.chunkInts);
      this.#chunks.add(this.#chunk.buffer);
      this.#top = 0;
    }
    this.#top += length;
    this.#made += 1;
    return this.#chunk.subarray(this.#top - length, this.#top);
  };

  /** Takes back a memo that was this room's (anything else is left to the garbage collector). */
  give(memo: unknown): void {
    if (!(memo instanceof Int32Array) || !this.#chunks.has(memo.buffer)) return;
    const free = this.#free.get(memo.length);
    if (free === undefined) this.#free.set(memo.length, [memo]);
    else free.push(memo);
  }

  /** Views made from the chunks, and of them those handed out and not given back. */
  counts(): { made: number; inUse: number } {
    let free = 0;
    for (const views of this.#free.values()) free += views.length;
    return { made: this.#made, inUse: this.#made - free };
  }
}

export class ContentCache {
  readonly #entries: LRUCache<string, Entry>;
  /** Article id or list key → the keys of entries that depend on it. */
  readonly #byArticle: Index = new Map();
  readonly #byList: Index = new Map();
  readonly #reading = new Map<string, Pending<Kept<unknown> | null>>();
  readonly #now: () => number;
  readonly #unsubscribe: () => void;
  readonly #followers = new Set<(change: ContentChange) => void>();
  /** Lists handed out as they were while read again: with #epoch, the mark. */
  #handedOut = 0;
  /** Moves with every change readers can see: reads that began before it are not trusted. */
  #epoch = 0;
  #outageUntil = -Infinity;
  readonly #failures: StoreFailures;
  #counts: ContentCounts = { contentStoreReads: 0, contentRebuilt: 0, contentPreviousServed: 0 };
  /** Memos worked out from scratch and brought up to date (memo()): both only rise. */
  readonly #memos = { computed: 0, updated: 0 };
  /** Where the numbers of the memos kept on entries live. */
  readonly #numbers = new MemoNumbers();
  /** Which ids are published articles (the view beacons' check), where the options say how to read them. */
  readonly published: PublishedIds | null;

  constructor(private readonly options: ContentCacheOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#failures = options.failures ?? new StoreFailures(options.name, this.#now);
    this.#entries = new LRUCache<string, Entry>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => entryBytes(entry.value),
      dispose: (entry, key) => {
        this.#unindex(key, entry);
        this.#numbers.give(entry.memo);
      },
    });
    this.published = options.publishedIds ? new PublishedIds(options.publishedIds, () => this.#catchUp()) : null;
    this.#unsubscribe = options.changes?.subscribe((change) => this.apply(change)) ?? (() => undefined);
  }

  /**
   * Moves with every change readers can see and every list handed out as it was while read again
   * (the rule at the top of this file): a render that saw it move may show what a change took
   * back. Not brought up to date from the feed (that is a read's work): a change a render's own
   * reads bring in moves it too.
   */
  get mark(): number {
    return this.#epoch + this.#handedOut;
  }

  /** Moves whenever a change readers can see has been applied. */
  get version(): number {
    this.#catchUp();
    return this.#epoch;
  }

  /** Lets go of what `change` can alter: every change the store's feed reports comes here. */
  apply(change: ContentChange): void {
    if (!isPublicChange(change)) return;
    this.#epoch += 1;
    this.published?.apply(change);
    this.#drop(change);
    for (const follower of this.#followers) follower(change);
  }

  /**
   * Calls `follower` with every change a reader could see (a published article's, or
   * everything), after this cache has dropped what it touches; returns the function that stops it.
   */
  follow(follower: (change: ContentChange) => void): () => void {
    this.#followers.add(follower);
    return () => this.#followers.delete(follower);
  }

  #drop(change: ContentChange): void {
    if (change.kind === 'everything') {
      for (const entry of this.#entries.values()) {
        entry.fresh = false;
        entry.entered = undefined;
      }
      return;
    }
    for (const key of keysIn(this.#byArticle, change.id)) this.#stale(key, undefined);
    const before = listsOf(change.was);
    const after = listsOf(change.now);
    for (const list of new Set([...before, ...after])) {
      // Entering: listed now and not before (a story published, or retagged into the list).
      const entering = after.includes(list) && !before.includes(list);
      for (const key of keysIn(this.#byList, list)) {
        const depends = this.#entries.peek(key)?.depends;
        if (depends && coversIn(depends, list, change.id)) this.#stale(key, entering && oneList(depends, list) ? change.id : undefined);
      }
    }
  }

  /**
   * A kept answer, or one read for every reader waiting on the same key. Null answers are not
   * kept. What is kept is frozen: it is shared by every request until a change.
   */
  read<T>(key: string, load: () => Promise<T | null>, depends: (value: T) => Dependency | null, maxAgeMs = this.options.freshMs): Promise<Kept<T> | null> {
    this.#catchUp();
    const entry = this.#entries.get(key);
    if (entry !== undefined && this.#current(entry)) return Promise.resolve(entry as Kept<T>);
    if (this.#now() < this.#outageUntil) return this.#standInNow<T>(key);
    const pending = this.#reading.get(key);
    if (pending?.epoch === this.#epoch) return this.#meanwhile<T>(entry) ?? (pending.promise as Promise<Kept<T> | null>);
    const promise: Promise<Kept<T> | null> = this.#load(key, load, depends, maxAgeMs).finally(() => {
      if (this.#reading.get(key)?.promise === promise) this.#reading.delete(key);
    });
    this.#reading.set(key, { epoch: this.#epoch, promise });
    return promise;
  }

  /**
   * The value kept for `key` if it can be trusted until the next change, without a promise:
   * a page whose every part is kept is put together at once. Undefined otherwise (then read()).
   */
  fresh<T>(key: string): T | undefined {
    this.#catchUp();
    const entry = this.#entries.get(key);
    return entry !== undefined && this.#current(entry) ? (entry.value as T) : undefined;
  }

  /**
   * What `compute` works out from the value kept for `key` and the reads it is handed with it:
   * kept on the entry, and handed out again while `current` says it was worked out from the reads
   * the caller holds now (the memo names them itself: a kept value is replaced by a new read,
   * never changed, so the same read means the same content). When not, `update` is handed the
   * value worked out before and may answer what `compute` would from it (undefined where it
   * cannot: then `compute`). It must hold no object of another entry (numbers, not teasers): an
   * entry evicted or read again is then let go, whatever memos named it. One slot of the entry,
   * going with it, not counted in the bound. Kept as `compute` and `update` made it, not frozen
   * (the rule at the top of this file): the caller reads it and hands out nothing of it, and reads
   * it before anything else can reach this cache (no await between). `compute` is handed where
   * numbers come from: this cache's room (MemoNumbers) where the result is kept on an entry,
   * given back when the entry goes or the memo is worked out again; its own array where no entry
   * keeps it.
   */
  memo<T>(key: string, current: (kept: T) => boolean, compute: (room: NumberRoom) => T, update?: (previous: T) => T | undefined): T {
    const entry = this.#entries.peek(key);
    const kept = entry?.memo as T | undefined;
    // Every page asks on every request and nearly always gets the memo: compared in place, nothing made.
    if (kept !== undefined && current(kept)) return kept;
    let value = kept !== undefined && update !== undefined ? update(kept) : undefined;
    // The memo before, where it is not the one kept now, goes back to the room first (a memo
    // worked out again then takes its place).
    if (entry !== undefined && kept !== undefined && value !== kept) {
      entry.memo = undefined;
      this.#numbers.give(kept);
    }
    if (value === undefined) {
      this.#memos.computed += 1;
      value = compute(entry !== undefined ? this.#numbers.take : ownNumbers);
    } else this.#memos.updated += 1;
    if (entry !== undefined) entry.memo = value;
    return value;
  }

  /** The room for memos' numbers: views made, and views held by memos now (for tests). */
  memoNumbers(): { made: number; inUse: number } {
    return this.#numbers.counts();
  }

  /**
   * The articles that entered the list `key`'s entry depends on since it was kept, when the
   * entry is stale and every change that reached it was one of those (its previous value is then
   * the list as it was, less them: reader.ts reads only them); else undefined (read it whole).
   */
  enteredSince(key: string): readonly string[] | undefined {
    const entry = this.#entries.peek(key);
    return entry === undefined || entry.fresh || entry.entered === undefined || entry.entered.length === 0 ? undefined : entry.entered;
  }

  /**
   * The value last kept for `key`, current or not, without counting as a read: what a new read
   * of it can be compared with (reader.ts: which ids of a list are new in front).
   */
  previous<T>(key: string): T | undefined {
    return this.#entries.peek(key)?.value as T | undefined;
  }

  /** The value of read(): what pages use. */
  async get<T>(key: string, load: () => Promise<T | null>, depends: (value: T) => Dependency | null, maxAgeMs?: number): Promise<T | null> {
    return (await this.read(key, load, depends, maxAgeMs))?.value ?? null;
  }

  /**
   * Several keys at once: those not kept are read together, in one call of `load` (one
   * statement), each then kept on its own; keys another reader is reading are waited for.
   */
  readMany<T>(
    keys: readonly string[],
    load: (keys: string[]) => Promise<(T | null)[]>,
    depends: (value: T, key: string) => Dependency | null,
  ): Promise<(Kept<T> | null)[]> {
    this.#catchUp();
    const answers: Promise<Kept<T> | null>[] = [];
    const missing: { key: string; at: number }[] = [];
    const outage = this.#now() < this.#outageUntil;
    for (const key of keys) {
      const entry = this.#entries.get(key);
      const pending = this.#reading.get(key);
      if (entry !== undefined && this.#current(entry)) answers.push(Promise.resolve(entry as Kept<T>));
      else if (outage) answers.push(this.#standInNow<T>(key));
      else if (pending?.epoch === this.#epoch) answers.push(this.#meanwhile<T>(entry) ?? (pending.promise as Promise<Kept<T> | null>));
      else missing.push({ key, at: answers.push(Promise.resolve(null)) - 1 });
    }
    if (missing.length === 0) return Promise.all(answers);
    const batch = this.#loadMany(
      missing.map((m) => m.key),
      load,
      depends,
    );
    missing.forEach(({ key, at }, i) => {
      const promise: Promise<Kept<T> | null> = batch
        .then((settled) => {
          const one = settled[i]!;
          if ('error' in one) throw one.error;
          return one.kept;
        })
        .finally(() => {
          if (this.#reading.get(key)?.promise === promise) this.#reading.delete(key);
        });
      this.#reading.set(key, { epoch: this.#epoch, promise });
      answers[at] = promise;
    });
    return Promise.all(answers);
  }

  /**
   * This cache, for one page's render: every key read through it is noted in `reads` (made by
   * startPage), so the page can be kept with what those entries depend on.
   */
  noting(reads: PageReads): CacheReads {
    const { keys } = reads;
    return {
      get: async <T>(key: string, load: () => Promise<T | null>, depends: (value: T) => Dependency | null, maxAgeMs?: number) => {
        keys.add(key);
        const kept = await this.read(key, load, depends, maxAgeMs);
        if (kept?.fresh === false) reads.vouched = false;
        return kept?.value ?? null;
      },
      readMany: async <T>(many: readonly string[], load: (keys: string[]) => Promise<(T | null)[]>, depends: (value: T, key: string) => Dependency | null) => {
        for (const key of many) keys.add(key);
        const kept = await this.readMany(many, load, depends);
        if (kept.some((one) => one?.fresh === false)) reads.vouched = false;
        return kept;
      },
      fresh: <T>(key: string) => {
        keys.add(key);
        return this.fresh<T>(key);
      },
      memo: (key, current, compute, update) => this.memo(key, current, compute, update),
      // Read inside a store read, to compare with: not what the page shows.
      previous: <T>(key: string) => this.previous<T>(key),
      enteredSince: (key) => this.enteredSince(key),
    };
  }

  /** Begins a page's render: what it reads through noting() is noted here. */
  startPage(): PageReads {
    this.#catchUp();
    return { epoch: this.#epoch, keys: new Set(), vouched: true };
  }

  /**
   * Keeps a rendered page under `key` for up to `ttlMs`, depending on what every entry it was
   * put together from depends on: the first change that drops one of them drops the page too,
   * and a change that drops none of them leaves it. Not kept (false) when a change came while it
   * was put together, it was handed an answer not fresh (a list's version before a change), or
   * one of those entries is not current (a stand-in, expired or let go): then what it shows
   * cannot be vouched for.
   */
  keepPage(key: string, value: object, reads: PageReads, ttlMs: number): boolean {
    this.#catchUp();
    if (reads.epoch !== this.#epoch || !reads.vouched) return false;
    const depends: Dependency[] = [];
    for (const input of reads.keys) {
      const entry = this.#entries.peek(input);
      if (entry === undefined || !this.#current(entry)) return false;
      depends.push(...dependencies(entry.depends));
    }
    this.#keep(key, deepFreeze(value), depends, true, this.#epoch, ttlMs);
    return this.#entries.has(key);
  }

  /** What is kept, for tests: the keys of answers that can be trusted until the next change, and of those that cannot. */
  snapshot(): { fresh: string[]; stale: string[] } {
    const fresh: string[] = [];
    const stale: string[] = [];
    for (const [key, entry] of this.#entries.entries()) (entry.fresh ? fresh : stale).push(key);
    return { fresh: fresh.sort(), stale: stale.sort() };
  }

  /**
   * `bytes` as heapBytes() counts them; `loads`: reads sent to the store; `rebuilt`: stale
   * answers read again; `memoComputed` and `memoUpdated`: memos (an article page's related
   * ranking) worked out from scratch, and brought up to date from the one before;
   * `previousServed`: lists handed out as they were before a change while read again.
   */
  stats(): { entries: number; bytes: number; loads: number; rebuilt: number; memoComputed: number; memoUpdated: number; previousServed: number } {
    const { contentStoreReads, contentRebuilt, contentPreviousServed } = this.#counts;
    return {
      previousServed: contentPreviousServed,
      entries: this.#entries.size,
      bytes: this.#entries.calculatedSize,
      loads: contentStoreReads,
      rebuilt: contentRebuilt,
      memoComputed: this.#memos.computed,
      memoUpdated: this.#memos.updated,
    };
  }

  /**
   * Counts into `counts` from now on (the worker's metrics), adding what was counted so far:
   * the metrics exist only once the site is put together, after the content is opened.
   */
  countInto(counts: ContentCounts): void {
    counts.contentStoreReads += this.#counts.contentStoreReads;
    counts.contentRebuilt += this.#counts.contentRebuilt;
    counts.contentPreviousServed += this.#counts.contentPreviousServed;
    this.#counts = counts;
  }

  /** Lets go of everything kept. */
  clear(): void {
    this.#entries.clear();
  }

  /** Lets go of everything kept and of the change feed. */
  close(): void {
    this.#unsubscribe();
    this.published?.close();
    this.#entries.clear();
  }

  /** Before every read: the store's feed brought up to date (SQLite reads its log here), the cache's one call into it. */
  #catchUp(): void {
    this.options.changes?.poll();
  }

  #current(entry: Entry): boolean {
    return entry.fresh && (entry.maxAgeMs < 0 || this.#now() - entry.storedAt < entry.maxAgeMs);
  }

  async #load<T>(key: string, load: () => Promise<T | null>, depends: (value: T) => Dependency | null, maxAgeMs: number): Promise<Kept<T> | null> {
    const epoch = this.#epoch;
    this.#counts.contentStoreReads += 1;
    const again = this.#entries.peek(key) !== undefined;
    let value: T | null;
    try {
      value = await load();
    } catch (error) {
      this.#failed(error);
      return this.#standIn<T>(key, error);
    }
    this.#outageUntil = -Infinity;
    if (again) this.#counts.contentRebuilt += 1;
    return this.#answer(key, value, depends, epoch, maxAgeMs);
  }

  async #loadMany<T>(
    keys: string[],
    load: (keys: string[]) => Promise<(T | null)[]>,
    depends: (value: T, key: string) => Dependency | null,
  ): Promise<Settled<T>[]> {
    const epoch = this.#epoch;
    this.#counts.contentStoreReads += 1;
    const again = keys.filter((key) => this.#entries.peek(key) !== undefined).length;
    let values: (T | null)[];
    try {
      values = await load(keys);
    } catch (error) {
      this.#failed(error);
      return keys.map((key) => {
        try {
          return { kept: this.#standIn<T>(key, error) };
        } catch (unavailable) {
          return { error: unavailable };
        }
      });
    }
    this.#outageUntil = -Infinity;
    this.#counts.contentRebuilt += again;
    return keys.map((key, i) => ({ kept: this.#answer(key, values[i] ?? null, (value: T) => depends(value, key), epoch, this.options.freshMs) }));
  }

  #failed(error: unknown): void {
    if (this.options.isOutage(error)) this.#outageUntil = this.#now() + this.options.backoffMs;
  }

  /** Keeps a store's answer read since `epoch`: as stale if a change came meanwhile. */
  #answer<T>(key: string, value: T | null, depends: (value: T) => Dependency | null, epoch: number, maxAgeMs: number): Kept<T> | null {
    const newer = (this.#entries.peek(key)?.epoch ?? -1) > epoch;
    if (value === null) {
      // Gone (unpublished) or never there: an old copy must not stand in for it later.
      if (!newer) this.#entries.delete(key);
      return null;
    }
    // Shared by every request from now on: frozen so no caller can change it for the others.
    const frozen = deepFreeze(value);
    const fresh = epoch === this.#epoch;
    const on = depends(frozen);
    if (!newer) this.#keep(key, frozen, on, fresh, epoch, maxAgeMs);
    return { value: frozen, fresh };
  }

  #keep(key: string, value: unknown, on: Dependency | readonly Dependency[] | null, fresh: boolean, epoch: number, maxAgeMs: number): void {
    // An answer larger than the whole budget is not kept (lru-cache drops any older copy too).
    // Kept not fresh (a change came while it was read): what entered since cannot be told from
    // what the read saw, so no later change can say the list is it with stories in front.
    const depends = keptDepends(on);
    this.#entries.set(key, {
      value,
      storedAt: Math.ceil(this.#now()),
      epoch,
      depends,
      fresh,
      maxAgeMs: maxAgeOf(maxAgeMs),
      memo: undefined,
      entered: fresh ? noneEntered : undefined,
    });
    if (!this.#entries.has(key)) return;
    for (const one of dependencies(depends)) {
      if ('article' in one) add(this.#byArticle, one.article, key);
      else add(this.#byList, one.list, key);
    }
  }

  /** Called by lru-cache when an entry is evicted, replaced or deleted. */
  #unindex(key: string, entry: Entry): void {
    for (const one of dependencies(entry.depends)) {
      if ('article' in one) remove(this.#byArticle, one.article, key);
      else remove(this.#byList, one.list, key);
    }
  }

  /** Marks `key`'s entry stale because of a change: one that put `entered` into its list, or (undefined) any other. */
  #stale(key: string, entered: string | undefined): void {
    const entry = this.#entries.peek(key);
    if (entry === undefined) return;
    entry.fresh = false;
    entry.entered = entered === undefined || entry.entered === undefined ? undefined : [...entry.entered, entered];
  }

  /**
   * For a reader who comes while `entry`'s read is in flight: the version it replaces, when the
   * rule at the top of this file allows it (a change dropped it, it depends on lists alone, it
   * was kept within staleMs), else undefined (then the reader waits on the read).
   */
  #meanwhile<T>(entry: Entry | undefined): Promise<Kept<T>> | undefined {
    if (entry === undefined || entry.fresh || entry.depends === null) return undefined;
    if (this.#now() - entry.storedAt > this.options.staleMs) return undefined;
    if (!dependencies(entry.depends).every((one) => 'list' in one)) return undefined;
    this.#counts.contentPreviousServed += 1;
    this.#handedOut += 1;
    return Promise.resolve({ value: entry.value as T, fresh: false });
  }

  /** During an outage's back-off: what is kept, without asking the store. */
  #standInNow<T>(key: string): Promise<Kept<T>> {
    try {
      return Promise.resolve(this.#standIn<T>(key, null));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The kept answer, however old within staleMs, or ContentUnavailable. */
  #standIn<T>(key: string, error: unknown): Kept<T> {
    const entry = this.#entries.get(key);
    const ageMs = entry === undefined ? undefined : this.#now() - entry.storedAt;
    if (entry !== undefined && ageMs! <= this.options.staleMs) {
      if (error !== null) this.#failures.report(key, error, 'stale', ageMs);
      return { value: entry.value as T, fresh: false };
    }
    if (error !== null) this.#failures.report(key, error, 'unavailable');
    throw new ContentUnavailable(`${this.options.name}: nothing kept for ${key}`, error === null ? undefined : { cause: error });
  }
}
