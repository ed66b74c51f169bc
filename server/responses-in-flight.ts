import type http from 'node:http';

const slotOf = Symbol('slot in ResponsesInFlight');
type Tracked = http.ServerResponse & { [slotOf]?: number };

/**
 * The responses in flight: a slot each in one array, emptied when the response closes, and the
 * emptied slots reused. Not a Set: a Set of them, held by the long-lived server, made V8 promote
 * nearly every response to the old generation. Each time the Set's table was rebuilt, the table
 * left behind, already old, still pointed at the responses in flight then, and a young object an
 * old one points at survives every scavenge until the next major collection, whether or not
 * anything still holds the old one. With eight requests at a time that was ~3.5 KB a page against
 * 280 bytes since, and most of what a worker promoted whenever answers waited
 * (docs/performance.md, "Where the stalls come from"). An emptied slot points at nothing; the
 * array itself is replaced only when more responses are in flight than ever before.
 */
export class ResponsesInFlight {
  readonly #slots: (Tracked | undefined)[] = [];
  readonly #free: number[] = [];
  // One listener for every response (no closure per request); the emitter is the response.
  readonly #onClose: (this: Tracked) => void;

  constructor() {
    const slots = this.#slots;
    const free = this.#free;
    this.#onClose = function (this: Tracked) {
      const slot = this[slotOf];
      if (slot === undefined) return;
      this[slotOf] = undefined;
      slots[slot] = undefined;
      free.push(slot);
    };
  }

  /** Every slot is taken or free, and an emptied one is free until it is taken again. */
  get size(): number {
    return this.#slots.length - this.#free.length;
  }

  add(res: Tracked): void {
    const slot = this.#free.pop() ?? this.#slots.length;
    this.#slots[slot] = res;
    res[slotOf] = slot;
    res.on('close', this.#onClose);
  }

  /** Each response whose headers have not gone out yet. */
  forEachUnwritten(each: (res: http.ServerResponse) => void): void {
    for (const res of this.#slots) if (res !== undefined && !res.headersSent) each(res);
  }
}
