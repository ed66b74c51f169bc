// What a request is, by its path: the first stage of every request's way through Kiosk, and the
// one place it is decided. The server's guard reads it (server/overload.ts: which requests it
// admits and how), the browser's navigation reads it (client/navigation.ts: which links it
// resolves itself), and the Nginx configuration is rendered from it (scripts/nginx/render.ts:
// each kind's location), so the three cannot disagree about what a page is.

export type RequestKind =
  /** Rendered from the route table: guarded, with the shell when a worker is full. */
  | 'page'
  /** The JSON API the browser renders from: guarded, a JSON 503 when full. */
  | 'api'
  /** Readers' view beacons (POST): a client's share, then the API's cap. */
  | 'beacon'
  /** The CMS's pushes (bearer token): always to a worker. */
  | 'ingest'
  /** Editors' signed previews: always server-rendered, under a cap of their own. */
  | 'preview'
  /** The newsletter form's endpoint (POST): always to a worker. */
  | 'form'
  | 'media'
  /** The client bundle, with hashed names: from disk. */
  | 'asset'
  | 'favicon'
  /** The load balancer's health check: exempt from the origin secret. */
  | 'health'
  /** Never served on the site's port (the cluster answers /metrics on its own). */
  | 'metrics';

/**
 * Paths by kind, tried in order: an exact path, or a prefix. Anything else is a page. `name` is
 * the entry's location in the Nginx template ({{location_<name>}}), which has one for each.
 */
export const pathKinds: readonly { name: string; kind: Exclude<RequestKind, 'page'>; exact?: string; prefix?: string }[] = [
  { name: 'health', kind: 'health', exact: '/healthz' },
  { name: 'assets', kind: 'asset', prefix: '/assets/' },
  { name: 'favicon', kind: 'favicon', prefix: '/favicon.' },
  { name: 'media', kind: 'media', prefix: '/media/' },
  { name: 'preview', kind: 'preview', prefix: '/preview/' },
  { name: 'newsletter', kind: 'form', exact: '/newsletter' },
  { name: 'metrics', kind: 'metrics', prefix: '/metrics' },
  { name: 'ingest', kind: 'ingest', prefix: '/api/ingest/' },
  { name: 'views', kind: 'beacon', prefix: '/api/views/' },
  { name: 'api_root', kind: 'api', exact: '/api' },
  { name: 'api', kind: 'api', prefix: '/api/' },
];

/** The kind of a request for `path` (a query string, if any, is not looked at). */
export function classify(path: string): RequestKind {
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  for (const { kind, exact, prefix } of pathKinds) {
    if (exact !== undefined ? bare === exact : bare.startsWith(prefix!)) return kind;
  }
  return 'page';
}
