// Records keyed by strings from outside: a reader's URL or the CMS chooses the slug or the id. On
// a plain object, `record['constructor']` finds Object.prototype's constructor, and a tag page
// named so would render from a function. So every such record in the state has no prototype, and
// every read asks for the record's own entry. The records stay plain data: JSON writes them, the
// server embeds them and the browser reads them back through `keyedFrom`.

declare const keyedValues: unique symbol;

/**
 * Values by a slug or an id. It has no index signature on purpose: `record[key]` does not
 * compile, so every read goes through `entryOf`.
 */
export interface Keyed<T> {
  readonly [keyedValues]?: T;
}

type Writable<T> = Record<string, T>;

export function emptyKeyed<T>(): Keyed<T> {
  return Object.create(null) as Keyed<T>;
}

/** The value stored under `key` itself, never one a prototype lends. */
export function entryOf<T>(record: Keyed<T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? (record as Writable<T>)[key] : undefined;
}

/**
 * A prototype-free copy of a record from elsewhere (JSON.parse makes plain objects): once it has
 * no prototype, even `__proto__` is stored as an entry like any other key.
 */
export function keyedFrom<T>(source: object | null | undefined): Keyed<T> {
  const record = emptyKeyed<T>() as Writable<T>;
  if (source) for (const [key, value] of Object.entries(source)) record[key] = value as T;
  return record;
}

/**
 * Sets an entry in place, for a reducer's draft. The draft is of a prototype-free record (the
 * slices start from `emptyKeyed` and the store copies what it is given through `keyedFrom`), so
 * no key reaches a prototype's setter.
 */
export function setEntry<T>(record: Keyed<T>, key: string, value: T): void {
  (record as Writable<T>)[key] = value;
}

/** A prototype-free copy with `key` set, for state built without reducers (the server's). */
export function withEntry<T>(record: Keyed<T>, key: string, value: T): Keyed<T> {
  const next = keyedFrom<T>(record) as Writable<T>;
  next[key] = value;
  return next;
}
