// Cache tags kept once each: what the workers remember of their copies (writer.ts) and what the
// primary's index holds (copy-index.ts).

/** How many distinct tag strings TagStrings keeps before it starts again. */
const maxTagStrings = 100_000;

/**
 * One copy of each cache tag remembered. A tag split from a page's Cache-Tag header is
 * a view into that header (V8 keeps a substring of 13 characters or more, an article's tag among
 * them, as a slice of its parent), so remembering the split tags kept every page's whole header
 * alive beside them: about 2.6 KB and 40 objects per path remembered, 26 MB for 10,000 paths,
 * which the collector marks again on every major collection. Each tag is kept here once, as a
 * string of its own; a path then costs its array. Emptied when it passes its bound (the tags of
 * stories long gone would stay otherwise); strings handed out before stay valid.
 */
export class TagStrings {
  readonly #strings = new Map<string, string>();

  constructor(private readonly max = maxTagStrings) {}

  /** The tags of a Cache-Tag header value (or already split), each the one copy kept of it. */
  of(header: string | readonly string[] | undefined): string[] {
    if (header === undefined) return [];
    const tags: string[] = [];
    for (const tag of typeof header === 'string' ? header.split(',') : header) if (tag !== '') tags.push(this.#one(tag));
    return tags;
  }

  get size(): number {
    return this.#strings.size;
  }

  #one(tag: string): string {
    let kept = this.#strings.get(tag);
    if (kept === undefined) {
      if (this.#strings.size >= this.max) this.#strings.clear();
      // A string of its own, not a slice of the header: what JSON.parse makes is new.
      kept = JSON.parse(JSON.stringify(tag)) as string;
      this.#strings.set(kept, kept);
    }
    return kept;
  }
}
