import { LRUCache } from 'lru-cache';
import { describeError, log } from '../log';
import { isPublicChange, type ContentChange } from './changes';
import { ContentUnavailable } from './failure';
import { deepFreeze } from './freeze';

// One worker's content cache, over any store. Every answer is kept with what it depends on (one
// article, or the newest articles of a list down to some id), so a change drops exactly the
// answers it can alter and the rest stay warm. Answers put together from others (an article
// page from the article and its lists) are kept beside them; when one of their inputs changes
// they are put together again on their next read, handed what they were and what their inputs
// held, so a page the change left as it was stays the same object; evicted with any input. When
// every input is already read again (by the first page after the change that needed it), that
// happens at once, without a read or a promise (`again`): most of what a push costs a worker.
//
// Also the one place a failing store is handled: readers of one key share one read; when the
// store fails, a kept answer stands in for up to staleMs, else ContentUnavailable (the short
// 503); after an outage the store is left alone for backoffMs; failures are logged at most once
// a second. lru-cache's fetch() has single flight and stale-on-error too, but a read it has
// started cannot be told that a change arrived meanwhile: here a reader that comes after a
// change never joins a read that began before it, and that read's answer is kept as stale.

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
  maxEntries: number;
  maxBytes: number;
  /** Kept answers younger than this stand in when the store fails. */
  staleMs: number;
  /** Answers older than this are read again: Infinity where a change feed says when. */
  freshMs: number;
  /** After an outage, how long to answer from what is kept without asking the store. */
  backoffMs: number;
  /** Milliseconds on a monotonic clock (tests pass their own). */
  now?: () => number;
}

/** An answer, and whether it can be trusted until the next change (false for a stand-in). */
export interface Kept<T> {
  readonly value: T;
  readonly fresh: boolean;
}

/** Reads the inputs of a put-together answer: as ContentCache.get and getMany, their keys recorded. */
export interface Inputs {
  get<T>(key: string, load: (previous: T | null) => Promise<T | null>, depends: (value: T) => Dependency | null): Promise<T | null>;
  getMany<T>(
    keys: readonly string[],
    load: (keys: string[], previous: (T | null)[]) => Promise<(T | null)[]>,
    depends: (value: T, key: string) => Dependency | null,
  ): Promise<(T | null)[]>;
}

type Settled<T> = { kept: Kept<T> | null } | { error: unknown };

interface Entry {
  readonly value: unknown;
  readonly bytes: number;
  readonly storedAt: number;
  /** The epoch its read began in: a read begun earlier never replaces it. */
  readonly epoch: number;
  readonly depends: Dependency | null;
  fresh: boolean;
}

interface Derived {
  value: unknown;
  /** The keys it was put together from, and what each held then (in the same order). */
  inputs: readonly string[];
  values: readonly unknown[];
  /** False once an input changed: it is put together again (from what it was) on its next read. */
  current: boolean;
}

/** What a put-together answer was, handed to its next computation after an input changed. */
export interface Previous<T> {
  readonly value: T;
  /** What an input held when `value` was put together; undefined if it was not read. */
  input<I>(key: string): I | undefined;
}

/**
 * An answer put together again without reading anything: handed what it was and what each of
 * its inputs holds now (`now(key)`, for the keys it was put together from), it returns the new
 * answer, or undefined to leave it to the full computation. It must read the same keys the full
 * computation read last time (the answer stays registered with them).
 */
export type Again<T> = (previous: Previous<T>, now: <I>(key: string) => I | undefined) => T | null | undefined;

/**
 * What the cache counts, as the worker's metrics name them (server/metrics/catalog.ts): reads
 * it sent to the store (one statement each, however many keys), and answers put together again
 * after an input changed. Both only rise.
 */
export interface ContentCounts {
  contentStoreReads: number;
  contentRebuilt: number;
}

interface Pending<T> {
  readonly epoch: number;
  readonly promise: Promise<T>;
}

const logEveryMs = 1_000;

function covers(depends: Dependency, id: string): boolean {
  if ('article' in depends) return depends.article === id;
  return (depends.from === null || id >= depends.from) && (depends.below === undefined || id < depends.below);
}

function previousOf<T>(derived: Derived): Previous<T> {
  const { value, inputs, values } = derived;
  return { value: value as T, input: <I>(key: string) => values[inputs.indexOf(key)] as I | undefined };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

function add(index: Map<string, Set<string>>, name: string, key: string): void {
  let keys = index.get(name);
  if (keys === undefined) index.set(name, (keys = new Set()));
  keys.add(key);
}

function remove(index: Map<string, Set<string>>, name: string, key: string): void {
  const keys = index.get(name);
  keys?.delete(key);
  if (keys?.size === 0) index.delete(name);
}

export class ContentCache {
  readonly #entries: LRUCache<string, Entry>;
  /** Article id or list key → the keys of entries that depend on it. */
  readonly #byArticle = new Map<string, Set<string>>();
  readonly #byList = new Map<string, Set<string>>();
  readonly #derived = new Map<string, Derived>();
  /** Entry key → the put-together answers made from it. */
  readonly #dependents = new Map<string, Set<string>>();
  readonly #reading = new Map<string, Pending<Kept<unknown> | null>>();
  readonly #deriving = new Map<string, Pending<unknown>>();
  readonly #now: () => number;
  /** Moves with every change readers can see: reads that began before it are not trusted. */
  #epoch = 0;
  #outageUntil = -Infinity;
  #failuresUnlogged = 0;
  #loggedAt = -Infinity;
  #counts: ContentCounts = { contentStoreReads: 0, contentRebuilt: 0 };

  constructor(private readonly options: ContentCacheOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#entries = new LRUCache<string, Entry>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      dispose: (entry, key, reason) => this.#unindex(key, entry, reason),
    });
  }

  /** Moves whenever a change readers can see has been applied (the page cache's key). */
  get version(): number {
    return this.#epoch;
  }

  /** Lets go of what `change` can alter; call it for every change the store's feed reports. */
  apply(change: ContentChange): void {
    if (!isPublicChange(change)) return;
    this.#epoch += 1;
    if (change.kind === 'everything') {
      for (const entry of this.#entries.values()) entry.fresh = false;
      this.#derived.clear();
      this.#dependents.clear();
      return;
    }
    for (const key of this.#byArticle.get(change.id) ?? []) this.#stale(key);
    for (const side of [change.was, change.now]) {
      if (side?.status !== 'published') continue;
      for (const list of ['all', `section:${side.section}`, ...side.tags.map((tag) => `tag:${tag}`)]) {
        for (const key of this.#byList.get(list) ?? []) {
          const depends = this.#entries.peek(key)?.depends;
          if (depends && covers(depends, change.id)) this.#stale(key);
        }
      }
    }
  }

  /**
   * A kept answer, or one read for every reader waiting on the same key. Null answers are not
   * kept. `load` is handed what is kept for the key, stale or not (null if nothing), so parts
   * of it a change left alone can be handed out again as the same objects.
   */
  read<T>(key: string, load: (previous: T | null) => Promise<T | null>, depends: (value: T) => Dependency | null): Promise<Kept<T> | null> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.fresh && this.#now() - entry.storedAt < this.options.freshMs) return Promise.resolve(entry as Kept<T>);
    if (this.#now() < this.#outageUntil) return this.#standInNow<T>(key);
    const pending = this.#reading.get(key);
    if (pending?.epoch === this.#epoch) return pending.promise as Promise<Kept<T> | null>;
    const promise: Promise<Kept<T> | null> = this.#load(key, load, depends).finally(() => {
      if (this.#reading.get(key)?.promise === promise) this.#reading.delete(key);
    });
    this.#reading.set(key, { epoch: this.#epoch, promise });
    return promise;
  }

  /** The value of read(): what pages use. */
  async get<T>(key: string, load: (previous: T | null) => Promise<T | null>, depends: (value: T) => Dependency | null): Promise<T | null> {
    return (await this.read(key, load, depends))?.value ?? null;
  }

  /**
   * Several keys at once: those not kept are read together, in one call of `load` (one
   * statement), each then kept on its own; keys another reader is reading are waited for.
   */
  readMany<T>(
    keys: readonly string[],
    load: (keys: string[], previous: (T | null)[]) => Promise<(T | null)[]>,
    depends: (value: T, key: string) => Dependency | null,
  ): Promise<(Kept<T> | null)[]> {
    const answers: Promise<Kept<T> | null>[] = [];
    const missing: { key: string; at: number }[] = [];
    const now = this.#now();
    for (const key of keys) {
      const entry = this.#entries.get(key);
      const pending = this.#reading.get(key);
      if (entry !== undefined && entry.fresh && now - entry.storedAt < this.options.freshMs) answers.push(Promise.resolve(entry as Kept<T>));
      else if (now < this.#outageUntil) answers.push(this.#standInNow<T>(key));
      else if (pending?.epoch === this.#epoch) answers.push(pending.promise as Promise<Kept<T> | null>);
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
   * An answer put together from kept ones (`compute` reads them through `inputs`): kept until
   * any of them changes, so a read of it is one lookup. Once one has changed, the next read
   * puts it together again and hands `compute` what it was and what its inputs held, so a
   * change that leaves it as it was can leave it as it was. Not kept while an input is only a
   * stand-in.
   */
  derive<T>(key: string, compute: (inputs: Inputs, previous: Previous<T> | null) => Promise<T | null>, again?: Again<T>): Promise<T | null> {
    const kept = this.#derived.get(key);
    if (kept?.current === true) {
      // Its inputs are read through it, never directly: keep them as recent as it is.
      for (const input of kept.inputs) this.#entries.get(input);
      return Promise.resolve(kept.value as T);
    }
    if (kept !== undefined && again !== undefined) {
      const value = this.#again(key, kept, again);
      if (value !== undefined) return Promise.resolve(value);
    }
    const pending = this.#deriving.get(key);
    if (pending?.epoch === this.#epoch) return pending.promise as Promise<T | null>;
    const promise: Promise<T | null> = this.#derive(key, compute, kept ?? null).finally(() => {
      if (this.#deriving.get(key)?.promise === promise) this.#deriving.delete(key);
    });
    this.#deriving.set(key, { epoch: this.#epoch, promise });
    return promise;
  }

  /** Writes and drafts are never answered from memory: the store answers, or ContentUnavailable. */
  async direct<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.#report(what, error, 'unavailable');
      throw new ContentUnavailable(`${this.options.name}: ${what} failed`, { cause: error });
    }
  }

  /**
   * What is kept, for tests: answers read from the store (fresh or stale), those put together
   * and current, and those put together whose inputs changed since (put together again when read).
   */
  snapshot(): { fresh: string[]; stale: string[]; derived: string[]; changed: string[] } {
    const fresh: string[] = [];
    const stale: string[] = [];
    for (const [key, entry] of this.#entries.entries()) (entry.fresh ? fresh : stale).push(key);
    const derived: string[] = [];
    const changed: string[] = [];
    for (const [key, { current }] of this.#derived) (current ? derived : changed).push(key);
    return { fresh: fresh.sort(), stale: stale.sort(), derived: derived.sort(), changed: changed.sort() };
  }

  /** `loads`: reads sent to the store since the cache was made; `rebuilt`: answers put together again. */
  stats(): { entries: number; bytes: number; derived: number; loads: number; rebuilt: number } {
    const { contentStoreReads, contentRebuilt } = this.#counts;
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize, derived: this.#derived.size, loads: contentStoreReads, rebuilt: contentRebuilt };
  }

  /**
   * Counts into `counts` from now on (the worker's metrics), adding what was counted so far:
   * the metrics exist only once the site is put together, after the content is opened.
   */
  countInto(counts: ContentCounts): void {
    counts.contentStoreReads += this.#counts.contentStoreReads;
    counts.contentRebuilt += this.#counts.contentRebuilt;
    this.#counts = counts;
  }

  clear(): void {
    this.#entries.clear();
    this.#derived.clear();
    this.#dependents.clear();
  }

  async #load<T>(key: string, load: (previous: T | null) => Promise<T | null>, depends: (value: T) => Dependency | null): Promise<Kept<T> | null> {
    const epoch = this.#epoch;
    this.#counts.contentStoreReads += 1;
    let value: T | null;
    try {
      value = await load((this.#entries.peek(key)?.value as T | undefined) ?? null);
    } catch (error) {
      this.#failed(error);
      return this.#standIn<T>(key, error);
    }
    this.#outageUntil = -Infinity;
    return this.#answer(key, value, depends, epoch);
  }

  async #loadMany<T>(
    keys: string[],
    load: (keys: string[], previous: (T | null)[]) => Promise<(T | null)[]>,
    depends: (value: T, key: string) => Dependency | null,
  ): Promise<Settled<T>[]> {
    const epoch = this.#epoch;
    this.#counts.contentStoreReads += 1;
    let values: (T | null)[];
    try {
      values = await load(
        keys,
        keys.map((key) => (this.#entries.peek(key)?.value as T | undefined) ?? null),
      );
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
    return keys.map((key, i) => ({ kept: this.#answer(key, values[i] ?? null, (value: T) => depends(value, key), epoch) }));
  }

  #failed(error: unknown): void {
    if (this.options.isOutage(error)) this.#outageUntil = this.#now() + this.options.backoffMs;
  }

  /** Keeps a store's answer read since `epoch`: as stale if a change came meanwhile. */
  #answer<T>(key: string, value: T | null, depends: (value: T) => Dependency | null, epoch: number): Kept<T> | null {
    const newer = (this.#entries.peek(key)?.epoch ?? -1) > epoch;
    if (value === null) {
      // Gone (unpublished) or never there: an old copy must not stand in for it later.
      if (!newer) this.#entries.delete(key);
      return null;
    }
    // Shared by every request from now on: frozen so no caller can change it for the others.
    const frozen = deepFreeze(value);
    const fresh = epoch === this.#epoch;
    if (!newer) this.#keep(key, frozen, depends(frozen), fresh, epoch);
    return { value: frozen, fresh };
  }

  /**
   * After a change, most answers put together again find every input already read again (by
   * the first page that needed it): then `again` runs here, at once, without the reads and
   * promises of the full computation. Undefined when an input is not kept and fresh, or when
   * `again` leaves it to the full computation.
   */
  #again<T>(key: string, kept: Derived, again: Again<T>): T | null | undefined {
    const now = this.#now();
    const values: unknown[] = [];
    for (const input of kept.inputs) {
      const entry = this.#entries.get(input);
      if (entry === undefined || !entry.fresh || now - entry.storedAt >= this.options.freshMs) return undefined;
      values.push(entry.value);
    }
    const { inputs } = kept;
    const value = again(previousOf<T>(kept), <I>(inputKey: string) => values[inputs.indexOf(inputKey)] as I | undefined);
    if (value === undefined) return undefined;
    this.#counts.contentRebuilt += 1;
    if (value === null) {
      this.#forget(key, kept);
      return null;
    }
    return this.#renew(kept, deepFreeze(value), values);
  }

  /** A put-together answer made again from the same keys: it stays where it was registered. */
  #renew<T>(kept: Derived, value: T, values: readonly unknown[]): T {
    kept.value = value;
    kept.values = values;
    kept.current = true;
    return value;
  }

  async #derive<T>(key: string, compute: (inputs: Inputs, previous: Previous<T> | null) => Promise<T | null>, before: Derived | null): Promise<T | null> {
    const epoch = this.#epoch;
    if (before !== null) this.#counts.contentRebuilt += 1;
    const inputs: string[] = [];
    const values: unknown[] = [];
    let trusted = true;
    const valueOf = <I>(kept: Kept<I> | null): I | null => {
      if (kept !== null && !kept.fresh) trusted = false;
      return kept?.value ?? null;
    };
    const value = await compute(
      {
        get: async (inputKey, load, depends) => {
          const at = inputs.push(inputKey) - 1;
          const found = valueOf(await this.read(inputKey, load, depends));
          values[at] = found ?? undefined;
          return found;
        },
        getMany: async (keys, load, depends) => {
          const at = inputs.push(...keys) - keys.length;
          return (await this.readMany(keys, load, depends)).map((kept, i) => {
            const found = valueOf(kept);
            values[at + i] = found ?? undefined;
            return found;
          });
        },
      },
      before === null ? null : previousOf<T>(before),
    );
    const kept = this.#derived.get(key);
    if (value === null) {
      if (kept !== undefined) this.#forget(key, kept);
      return null;
    }
    const frozen = deepFreeze(value);
    if (!(trusted && epoch === this.#epoch && inputs.every((input) => this.#entries.has(input)))) return frozen;
    if (kept !== undefined && sameKeys(kept.inputs, inputs)) return this.#renew(kept, frozen, values);
    if (kept !== undefined) this.#forget(key, kept);
    this.#derived.set(key, { value: frozen, inputs, values, current: true });
    for (const input of inputs) add(this.#dependents, input, key);
    return frozen;
  }

  #keep(key: string, value: unknown, depends: Dependency | null, fresh: boolean, epoch: number): void {
    const bytes = Math.max(1, Buffer.byteLength(JSON.stringify(value)));
    // An answer larger than the whole budget is not kept (lru-cache drops any older copy too).
    this.#entries.set(key, { value, bytes, storedAt: this.#now(), epoch, depends, fresh }, { size: bytes });
    if (depends === null || !this.#entries.has(key)) return;
    if ('article' in depends) add(this.#byArticle, depends.article, key);
    else add(this.#byList, depends.list, key);
  }

  /** Called by lru-cache when an entry is evicted, replaced or deleted. */
  #unindex(key: string, entry: Entry, reason: LRUCache.DisposeReason): void {
    const { depends } = entry;
    if (depends !== null) {
      if ('article' in depends) remove(this.#byArticle, depends.article, key);
      else remove(this.#byList, depends.list, key);
    }
    // Replaced by a newer read: what was put together from it is checked again when next read.
    // Evicted or deleted: that goes too, so the cache's bounds hold for what is put together.
    if (reason === 'set') this.#changed(key);
    else this.#dropDependents(key);
  }

  #stale(key: string): void {
    const entry = this.#entries.peek(key);
    if (entry !== undefined) entry.fresh = false;
    this.#changed(key);
  }

  /** What was put together from `key` is no longer current (and stays registered with its inputs). */
  #changed(key: string): void {
    for (const derivedKey of this.#dependents.get(key) ?? []) {
      const derived = this.#derived.get(derivedKey);
      if (derived !== undefined) derived.current = false;
    }
  }

  #dropDependents(key: string): void {
    const dependents = this.#dependents.get(key);
    if (dependents === undefined) return;
    this.#dependents.delete(key);
    for (const derivedKey of dependents) {
      const derived = this.#derived.get(derivedKey);
      this.#derived.delete(derivedKey);
      for (const input of derived?.inputs ?? []) if (input !== key) remove(this.#dependents, input, derivedKey);
    }
  }

  #forget(key: string, derived: Derived): void {
    this.#derived.delete(key);
    for (const input of derived.inputs) remove(this.#dependents, input, key);
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
      if (error !== null) this.#report(key, error, 'stale', ageMs);
      return { value: entry.value as T, fresh: false };
    }
    if (error !== null) this.#report(key, error, 'unavailable');
    throw new ContentUnavailable(`${this.options.name}: nothing kept for ${key}`, error === null ? undefined : { cause: error });
  }

  #report(key: string, error: unknown, served: 'stale' | 'unavailable', ageMs?: number): void {
    this.#failuresUnlogged += 1;
    const now = this.#now();
    // At most one line a second however many requests fail: an outage must not flood the logs.
    if (now - this.#loggedAt < logEveryMs) return;
    const { reason } = (error ?? {}) as { reason?: unknown };
    log.warn(`${this.options.name} failed`, {
      key,
      ...describeError(error),
      ...(typeof reason === 'string' ? { reason } : {}),
      served,
      staleAgeS: ageMs === undefined ? undefined : Math.round(ageMs / 1000),
      failures: this.#failuresUnlogged,
    });
    this.#loggedAt = now;
    this.#failuresUnlogged = 0;
  }
}
