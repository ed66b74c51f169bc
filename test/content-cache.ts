// A content cache for tests of its rules and of what hears it (server/content/cache.ts): no store
// behind it (each read is handed its load), an hour of stand-ins, no back-off, room for a hundred
// entries; a test overrides what it is about.
import { ContentCache, type ContentCacheOptions } from '../server/content/cache';

export function testCache(overrides: Partial<ContentCacheOptions> = {}): ContentCache {
  return new ContentCache({
    name: 'test store',
    isOutage: () => true,
    maxEntries: 100,
    maxBytes: 1_000_000,
    staleMs: 60_000,
    freshMs: Infinity,
    backoffMs: 0,
    ...overrides,
  });
}
