// A per-client bound ahead of every global one, so that a client sending too much has its own
// requests refused and nobody else's: at most `perWindow` per client per fixed window. O(1) per
// request; the clients remembered are bounded too, and all forgotten when the window turns.

export class PerClientLimit {
  private counts = new Map<string, number>();
  private window: number;
  /** Requests refused since the limit was made: over a client's share, or one client too many. */
  refused = 0;

  constructor(
    readonly perWindow: number,
    readonly windowMs: number,
    /** Past this many clients in one window, a new client is refused until the window turns. */
    readonly maxClients: number,
    private readonly now: () => number = Date.now,
  ) {
    this.window = Math.floor(now() / windowMs);
  }

  /** True and counted when `client` is within its share this window; false otherwise. */
  take(client: string): boolean {
    const window = Math.floor(this.now() / this.windowMs);
    if (window !== this.window) {
      this.counts.clear();
      this.window = window;
    }
    const taken = this.counts.get(client);
    if (taken === undefined ? this.counts.size >= this.maxClients : taken >= this.perWindow) {
      this.refused += 1;
      return false;
    }
    this.counts.set(client, (taken ?? 0) + 1);
    return true;
  }

  /** Whole seconds until the window turns: what a refusal's Retry-After says. */
  retryAfterS(): number {
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - this.now()) / 1000));
  }
}
