// The content layer's one failure a reader may see: the store did not answer and nothing kept
// could stand in. The HTTP layer (server/errors.ts) answers it with the short 503
// (content_unavailable), so the content layer needs nothing of HTTP.

export class ContentUnavailable extends Error {
  override name = 'ContentUnavailable';
}
