import express, { type NextFunction, type Request, type Response } from 'express';
import { apiBase } from '../src/api-paths';
import { answerError, commonHeadersMiddleware } from './answer';
import { apiRouter } from './api';
import { assetsDir, type Assets } from './assets';
import { cacheControl } from './cache-policy';
import type { Config } from './config';
import type { ArticleWriter, ContentReader, SignupStore } from './content/source';
import { KioskError } from './errors';
import { ingestRouter } from './ingest';
import { faviconHandler, mediaHandler } from './media';
import { newsletterRouter } from './newsletter';
import { previewHandler } from './preview';
import type { RenderDeps } from './render';
import type { ViewCounter } from './views';

export type AppConfig = Pick<
  Config,
  | 'siteUrl'
  | 'distDir'
  | 'trustProxy'
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
  /** How previews and error pages render; the site's pages use the same. */
  render?: RenderDeps;
  /** Counts article views; absent or null where the store keeps no counts. */
  views?: ViewCounter | null;
}

/**
 * The Express app for everything but pages: the API, static files, health, and the error
 * answers. It never listens: server/site.ts puts it behind the overload guard.
 */
export function createApp({ config, content, signups = null, assets, writer, render, views = null }: AppDeps): express.Express {
  const app = express();
  // Paths are exact, as src/request-kinds.ts and Nginx's locations read them: a mount that
  // ignored case let /api/INGEST/... reach ingestion through Nginx's /api/ location, under the
  // API's limits instead of ingestion's. Before any route: Express builds its router on the first.
  app.enable('case sensitive routing');
  app.enable('strict routing');
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Exactly the local proxy (Nginx on loopback): a client elsewhere cannot pose as another address.
  app.set('trust proxy', config.trustProxy);
  // JSON, files and errors alike: no sniffing, no framing, a sober referrer.
  app.use(commonHeadersMiddleware);

  const renderDeps: RenderDeps = render ?? { content, assets, siteUrl: config.siteUrl };

  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', cacheControl.noStore).type('text/plain').send('ok\n');
  });

  // Nginx serves these from disk in production; this is for running without it.
  app.use(
    '/assets',
    express.static(assetsDir(config.distDir), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: false,
    }),
  );
  app.get('/media/:file', mediaHandler);
  app.get(['/favicon.svg', '/favicon.ico'], faviconHandler);
  app.get('/preview/:id', previewHandler({ secret: config.previewSecret, content, render: renderDeps, concurrencyLimit: config.previewConcurrencyLimit }));
  app.use('/api/ingest', ingestRouter(config.ingestToken, writer));
  app.use(
    newsletterRouter({
      signups,
      render: renderDeps,
      clientHops: config.clientAddressHops,
      perClientPerHour: config.signupsPerClientPerHour,
      unconfirmedDays: config.newsletterUnconfirmedDays,
    }),
  );
  app.use(apiBase, apiRouter(content, { views, clientHops: config.clientAddressHops, siteUrl: config.siteUrl }));

  // Pages are answered before Express (server/pages.ts); what reaches here is anything else.
  app.use((req: Request, res: Response) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.set('Allow', 'GET, HEAD');
      throw new KioskError('methodNotAllowed');
    }
    throw new KioskError('notFound');
  });

  // The last stage, as for pages: one function answers every error (server/answer.ts).
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    answerError(req, res, error, renderDeps);
  });

  return app;
}
