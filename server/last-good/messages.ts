// What a worker tells the cluster primary about last good copies, over the cluster's IPC channel
// (process.send): a copy it has just put in place, with the cache tags of the page
// (server/edge/tags.ts), and the edge purge items of a change it has just seen (purgeItems:
// "#tag"s, or "/*" for everything).

export interface CopyWritten {
  kiosk: 'last-good:copied';
  path: string;
  tags: string[];
  /** When it was written (Date.now()). */
  at: number;
}

export interface ChangeSeen {
  kiosk: 'last-good:changed';
  items: string[];
}

export type LastGoodMessage = CopyWritten | ChangeSeen;

export function isLastGoodMessage(message: unknown): message is LastGoodMessage {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { kiosk?: unknown; path?: unknown; tags?: unknown; at?: unknown; items?: unknown };
  if (m.kiosk === 'last-good:copied') return typeof m.path === 'string' && Array.isArray(m.tags) && typeof m.at === 'number';
  if (m.kiosk === 'last-good:changed') return Array.isArray(m.items);
  return false;
}
