// The one index of the last good copies on this instance, kept by the cluster primary: for each
// page path, the cache tags of what its copy shows and when it was written. Pure bookkeeping: it
// says which paths to remove, and the primary (primary.ts) removes their files.
//
// Two workers may write the same path at nearly the same moment, and their messages can reach the
// primary in either order, so the file on disk may be either one's. A path written again keeps
// the union of the tags it was written with, so whichever file is there, a change to anything it
// shows removes it. Past `maxTagsPerPath` the entry matches every change.
//
// Each path's tags are an array of strings kept once each (TagStrings, as the workers keep
// theirs): a Set of its own per path, of strings parsed afresh from each message, took 29 MB for
// 10,000 copies of article pages (about 40 tags each), 6 MB this way, and a purge that looks
// through every array is no slower than one that asks every Set.
import { TagStrings } from './tag-strings';

/** Beyond this many distinct tags a path is removed on any change: a bound on the union. */
export const maxTagsPerPath = 256;

interface Entry {
  /** Null: too many tags to keep; any change removes it. */
  tags: readonly string[] | null;
  at: number;
}

export class CopyIndex {
  /** In order of the last write: the oldest first. */
  readonly #entries = new Map<string, Entry>();
  readonly #tagStrings = new TagStrings();

  get size(): number {
    return this.#entries.size;
  }

  has(path: string): boolean {
    return this.#entries.has(path);
  }

  /** Notes a copy written at `at`; returns the oldest paths past `maxCopies`, removed from the index. */
  add(path: string, tags: readonly string[], at: number, maxCopies: number): string[] {
    const before = this.#entries.get(path);
    this.#entries.delete(path);
    this.#entries.set(path, { tags: union(before?.tags, this.#tagStrings.of(tags), before !== undefined), at: Math.max(at, before?.at ?? at) });
    return this.#overCap(maxCopies);
  }

  /** The paths a change's purge items reach ("#tag", or "/*" for every copy), removed from the index. */
  purge(items: readonly string[]): string[] {
    if (items.includes('/*')) return this.#take(() => true);
    const tags = items.filter((item) => item.startsWith('#')).map((item) => item.slice(1));
    if (tags.length === 0) return [];
    return this.#take((entry) => entry.tags === null || tags.some((tag) => entry.tags!.includes(tag)));
  }

  /** The paths written before `olderThan`, then the oldest past `maxCopies`, removed from the index. */
  sweep(olderThan: number, maxCopies: number): { aged: string[]; overCap: string[] } {
    const aged = this.#take((entry) => entry.at < olderThan);
    return { aged, overCap: this.#overCap(maxCopies) };
  }

  #take(matches: (entry: Entry) => boolean): string[] {
    const taken: string[] = [];
    for (const [path, entry] of this.#entries) {
      if (!matches(entry)) continue;
      this.#entries.delete(path);
      taken.push(path);
    }
    return taken;
  }

  #overCap(maxCopies: number): string[] {
    const taken: string[] = [];
    for (const path of this.#entries.keys()) {
      if (this.#entries.size <= maxCopies) break;
      this.#entries.delete(path);
      taken.push(path);
    }
    return taken;
  }
}

function union(before: readonly string[] | null | undefined, tags: readonly string[], existed: boolean): readonly string[] | null {
  if (existed && before === null) return null;
  // The usual cases without a Set: a path indexed for the first time, and one written again with
  // the same tags (its refresh). Tags are kept once each (TagStrings), so the same tag is the same string.
  if (before === undefined) return tags.length > maxTagsPerPath ? null : tags;
  if (before !== null && before.length === tags.length && before.every((tag, i) => tag === tags[i])) return before;
  const all = new Set(before ?? []);
  for (const tag of tags) all.add(tag);
  return all.size > maxTagsPerPath ? null : [...all];
}
