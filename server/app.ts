import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { apiBase } from '../src/api-paths';
import { route, type RouteName } from '../src/request-kinds';
import { answer } from './answer';
import { answerError } from './answer-error';
import { apiRouter } from './api';
import { readAsset, type Assets } from './assets';
import { cacheControl } from './cache-policy';
import type { Config } from './config';
import type { ArticleWriter, ContentReader, SignupStore } from './content/source';
import { KioskError } from './errors';
import { ingestRouter } from './ingest';
import { faviconFiles, faviconHandler, mediaHandler } from './media';
import { newsletterRouter } from './newsletter';
import { routeOfRequest, type overloadGuardStage } from './overload';
import { previewHandler } from './preview';
import type { RenderDeps } from './render';
import { assetPolicy, contentTypes } from './response-policy';
import { mountPath, notRouted, pathAfter, type Handler, type Handlers, type Next } from './routes';
import type { ViewCounter } from './views';

export type AppConfig = Pick<
  Config,
  | 'siteUrl'
  | 'distDir'
  | 'ingestToken'
  | 'previewSecret'
  | 'previewConcurrencyLimit'
  | 'clientAddressHops'
  | 'signupsPerClientPerHour'
  | 'newsletterUnconfirmedDays'
>;

export interface AppDeps {
  config: AppConfig;
  content: ContentReader;
  /** Newsletter sign-ups; null where the store keeps none. */
  signups?: SignupStore | null;
  assets: Assets;
  /** Opened on the first CMS push: most workers never write. */
  writer: () => ArticleWriter;
  /** How pages, previews and error pages render. */
  render?: RenderDeps;
  /** Counts article views; absent or null where the store keeps no counts. */
  views?: ViewCounter | null;
  /** The server-rendered pages (server/pages.ts). */
  pages: Handler;
  /** The pipeline's first stage (server/overload.ts's guard). */
  guard: ReturnType<typeof overloadGuardStage>;
}

/** Express's router, case-sensitive and strict like the table, for a handler that reads route parameters. */
function router(): express.Router {
  return express.Router({ caseSensitive: true, strict: true });
}

/** An Express router as a handler: inside the app, every request is Express's. */
function routed(handler: express.Router): Handler {
  return (req, res, next) => handler(req as Request, res as Response, next);
}

/** Only GET and HEAD reach `handler`; any other method is left to notRouted's 405. */
function reads(handler: Handler): Handler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') handler(req, res, next);
    else next();
  };
}

/**
 * The one Express app: every request, pages included, goes through one pipeline. The guard
 * first (classify by the route table, count, admit: the shell or a 503 answered there), then the
 * handler the table's entry names, then notRouted for what the handler left, then the one
 * error function. No body parser or other work runs before the guard; only the newsletter's
 * form reads a body, on its own route. It is the worker's request listener (server/site.ts).
 */
export function createApp({ config, content, signups = null, assets, writer, render, views = null, pages, guard }: AppDeps): express.Express {
  const app = express();
  // Paths are exact, as src/request-kinds.ts and Nginx's locations read them: a mount that
  // ignored case let /api/INGEST/... reach ingestion through Nginx's /api/ location, under the
  // API's limits instead of ingestion's. Before any route: Express builds its router on the first.
  app.enable('case sensitive routing');
  app.enable('strict routing');
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  // Exactly the local proxy (Nginx on loopback): a client elsewhere cannot pose as another address.
  app.set('trust proxy', 'loopback');

  const renderDeps: RenderDeps = render ?? { content, assets, siteUrl: config.siteUrl };
  const paths = { assets: route('assets'), favicon: route('favicon'), media: route('media'), preview: route('preview') };
  const api = routed(
    router().use(apiBase, apiRouter(content, { views, clientHops: config.clientAddressHops, siteUrl: config.siteUrl, lifetimes: renderDeps.lifetimes })),
  );

  const handlers: Handlers = {
    health: reads((req, res) => answer(req, res, 200, { 'Cache-Control': cacheControl.noStore, 'Content-Type': contentTypes.text }, 'ok\n')),
    assets: reads((req, res, next) => {
      readAsset(config.distDir, pathAfter(paths.assets, req.url ?? '/')).then((file) => {
        if (file === null) next(new KioskError('notFound'));
        else answer(req, res, 200, { ...assetPolicy.headers, 'Content-Type': file.type }, file.bytes);
      }, next);
    }),
    favicon: reads((req, res, next) => {
      if (faviconFiles.includes(pathAfter(paths.favicon, req.url ?? '/'))) faviconHandler(req, res);
      else next();
    }),
    media: reads((req, res, next) => {
      const file = pathAfter(paths.media, req.url ?? '/');
      if (file.includes('/')) next();
      else mediaHandler(req, res, decodeURIComponentOr(file));
    }),
    preview: reads(
      (() => {
        const preview = previewHandler({ secret: config.previewSecret, content, render: renderDeps, concurrencyLimit: config.previewConcurrencyLimit });
        return (req, res, next) => {
          const id = pathAfter(paths.preview, req.url ?? '/');
          if (id === '' || id.includes('/')) next();
          else preview(req as Request, res as Response, decodeURIComponentOr(id)).catch(next);
        };
      })(),
    ),
    newsletter: routed(
      newsletterRouter({
        path: mountPath(route('newsletter')),
        signups,
        render: renderDeps,
        clientHops: config.clientAddressHops,
        perClientPerHour: config.signupsPerClientPerHour,
        unconfirmedDays: config.newsletterUnconfirmedDays,
      }),
    ),
    // Never on the site's port: the cluster answers /metrics on its own.
    metrics: (_req, _res, next) => next(),
    ingest: routed(router().use(mountPath(route('ingest')), ingestRouter(config.ingestToken, writer))),
    views: api,
    api_root: api,
    api,
    pages,
  };

  // The pipeline, in order.
  app.use(guard);
  app.use(function handle(req: IncomingMessage, res: ServerResponse, next: Next) {
    handlers[routeOfRequest(req).name as RouteName](req, res, next);
  });
  app.use((req: Request, res: Response) => notRouted(routeOfRequest(req), req, res));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    answerError(req, res, error, renderDeps);
  });
  return app;
}

/** A path segment decoded, or as it came when it is not valid percent-encoding (which then matches nothing). */
function decodeURIComponentOr(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
