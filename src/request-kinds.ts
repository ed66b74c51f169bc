// Kiosk's route table: what a request is, by its path, and how every layer treats it. The first
// stage of every request's way through Kiosk, and the one place it is decided. The server routes
// every request by it (server/routes.ts binds a handler to each entry; server/overload.ts admits
// by its admission class), the browser's navigation reads it (client/navigation.ts: which links
// it resolves itself), the Nginx configuration is rendered from it (scripts/nginx/render.ts: each
// entry's location) and CloudFront's cache behaviours are checked against its rendering
// (scripts/deploy/cloudfront.ts), so none of them can disagree about what a path is.
// Shared by the server and the browser: nothing here imports server code.

import { apiBase } from './api-paths';

export type RequestKind =
  /** Rendered from the page routes (src/routes.tsx): guarded, with the shell when a worker is full. */
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
 * How the overload guard (server/overload.ts) admits a GET or HEAD: `page` waits its turn and gets
 * the shell when the worker is full, `api` waits its turn and gets a JSON 503 far over the limit,
 * `none` goes straight through. Every other method goes straight through.
 */
export type AdmissionClass = 'page' | 'api' | 'none';

/** How an answer's body, errors included, is written: an HTML page, or JSON. */
export type BodyFormat = 'html' | 'json';

/**
 * The Cache-Control an answer carries, by name (server/cache-policy.ts spells each one). `content`:
 * the answer decides from what it found (a page's or an API answer's kind of content).
 */
export type CachePolicyName = 'content' | 'assets' | 'favicon' | 'noStore';

/**
 * How CloudFront treats the path (scripts/deploy/cloudfront.ts renders a cache behaviour from it):
 * `origin` is the default behaviour (the origin's Cache-Control decides, no query string in the
 * key), `api` the API's (the query parameters it reads in the key), `immutable` kept as long as
 * the origin says with nothing from the request in the key, `private` never cached with the
 * request's headers and query forwarded (GET and HEAD), `write` the same for every method,
 * `blocked` answered 404 at the edge.
 */
export type EdgeClass = 'origin' | 'api' | 'immutable' | 'private' | 'write' | 'blocked';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  /** Its Nginx location ({{location_<name>}} in the template) and its handler on the server. */
  readonly name: string;
  readonly kind: RequestKind;
  /** The path exactly, or every path that starts with the prefix. */
  readonly exact?: string;
  readonly prefix?: string;
  /** What it answers; anything else is a 405 naming these (unless the handler says otherwise). */
  readonly methods: readonly Method[];
  readonly admission: AdmissionClass;
  readonly cache: CachePolicyName;
  readonly body: BodyFormat;
  readonly edge: EdgeClass;
  /** Over HTTPS only at the edge (a credential or a reader's address travels with it), rather than redirected to it. */
  readonly httpsOnly?: boolean;
}

const read: readonly Method[] = ['GET', 'HEAD'];

/**
 * Tried in order: an exact path, or a prefix. The last entry, the pages', takes every path
 * (its prefix is "/"): anything that is not one of the others is a page.
 */
export const routeTable = [
  { name: 'health', kind: 'health', exact: '/healthz', methods: read, admission: 'none', cache: 'noStore', body: 'html', edge: 'origin' },
  { name: 'assets', kind: 'asset', prefix: '/assets/', methods: read, admission: 'none', cache: 'assets', body: 'html', edge: 'immutable' },
  { name: 'favicon', kind: 'favicon', prefix: '/favicon.', methods: read, admission: 'none', cache: 'favicon', body: 'html', edge: 'origin' },
  { name: 'media', kind: 'media', prefix: '/media/', methods: read, admission: 'none', cache: 'assets', body: 'html', edge: 'immutable' },
  { name: 'preview', kind: 'preview', prefix: '/preview/', methods: read, admission: 'none', cache: 'noStore', body: 'html', edge: 'private' },
  { name: 'newsletter', kind: 'form', exact: '/newsletter', methods: ['POST'], admission: 'none', cache: 'noStore', body: 'html', edge: 'write' },
  { name: 'metrics', kind: 'metrics', prefix: '/metrics', methods: read, admission: 'none', cache: 'noStore', body: 'html', edge: 'blocked' },
  {
    name: 'ingest',
    kind: 'ingest',
    prefix: `${apiBase}/ingest/`,
    methods: ['PUT', 'DELETE'],
    admission: 'none',
    cache: 'noStore',
    body: 'json',
    edge: 'write',
    httpsOnly: true,
  },
  {
    name: 'views',
    kind: 'beacon',
    prefix: `${apiBase}/views/`,
    methods: ['POST'],
    admission: 'none',
    cache: 'noStore',
    body: 'json',
    edge: 'write',
    httpsOnly: true,
  },
  { name: 'api_root', kind: 'api', exact: apiBase, methods: read, admission: 'api', cache: 'content', body: 'json', edge: 'origin' },
  { name: 'api', kind: 'api', prefix: `${apiBase}/`, methods: read, admission: 'api', cache: 'content', body: 'json', edge: 'api' },
  { name: 'pages', kind: 'page', prefix: '/', methods: read, admission: 'page', cache: 'content', body: 'html', edge: 'origin' },
] as const satisfies readonly Route[];

export type RouteName = (typeof routeTable)[number]['name'];

const pagesRoute: Route = routeTable[routeTable.length - 1]!;

/** The entry of the table that answers `path` (a query string, if any, is not looked at). */
export function routeOf(path: string): Route {
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  for (const route of routeTable as readonly Route[]) {
    if (route.exact !== undefined ? bare === route.exact : bare.startsWith(route.prefix!)) return route;
  }
  // A path that does not start with "/" (absolute-form, "*"): the pages' to refuse.
  return pagesRoute;
}

/** The entry named `name`. */
export function route(name: RouteName): Route {
  return (routeTable as readonly Route[]).find((r) => r.name === name)!;
}

/** The kind of a request for `path` (a query string, if any, is not looked at). */
export function classify(path: string): RequestKind {
  return routeOf(path).kind;
}

/** The path of an entry with a prefix, under it: `/preview/` + id. */
export function pathUnder(name: RouteName, rest: string): string {
  return route(name).prefix! + rest;
}
