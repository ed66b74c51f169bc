import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route, RouteName } from '../src/request-kinds';
import { KioskError } from './errors';

// The route table's handlers: src/request-kinds.ts says what each path is (and the browser,
// Nginx and CloudFront read the same table); here each entry gets the function that answers it.
// server/app.ts runs every request through one pipeline: the guard (server/overload.ts)
// classifies and admits it, `handle` passes it to its entry's handler, and what a handler
// leaves (`next()` with no error) is answered by `notRouted`: a 405 naming the entry's methods,
// or a 404.

export type Next = (error?: unknown) => void;
export type Handler = (req: IncomingMessage, res: ServerResponse, next: Next) => void;
export type Handlers = Readonly<Record<RouteName, Handler>>;

/** The table's path for the entry, as Express mounts a router under it: its prefix without the trailing slash, or its exact path. */
export function mountPath(route: Route): string {
  return route.exact ?? route.prefix!.replace(/\/$/, '');
}

/** What follows the entry's prefix in `url`, up to the query string. */
export function pathAfter(route: Route, url: string): string {
  const query = url.indexOf('?');
  return (query === -1 ? url : url.slice(0, query)).slice(route.prefix!.length);
}

/** "GET and HEAD", "PUT and DELETE", "POST". */
function spoken(methods: readonly string[]): string {
  return methods.length === 1 ? methods[0]! : `${methods.slice(0, -1).join(', ')} and ${methods[methods.length - 1]}`;
}

/** The stage after the handlers: a method the entry does not answer is a 405 with Allow, anything else left unanswered a 404. */
export function notRouted(route: Route, req: IncomingMessage, res: ServerResponse): never {
  if (!(route.methods as readonly string[]).includes(req.method ?? '')) {
    res.setHeader('Allow', route.methods.join(', '));
    throw new KioskError('methodNotAllowed', `This address only answers ${spoken(route.methods)}.`);
  }
  throw new KioskError('notFound');
}
