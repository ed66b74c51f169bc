import { performance } from 'node:perf_hooks';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ContentClient } from '../src/content';
import { apiRouter } from './api';
import { assetsDir, type Assets } from './assets';
import { cacheControl } from './cache-policy';
import type { Config } from './config';
import { classify, KioskError } from './errors';
import { describeError, log } from './log';
import { WorkerMetrics } from './metrics/worker-metrics';
import { faviconHandler, mediaHandler } from './media';
import { renderErrorPage, renderPage } from './render';

export interface AppDeps {
  config: Pick<Config, 'siteUrl' | 'distDir'>;
  content: ContentClient;
  assets: Assets;
  /** Where render counts and times go; the worker passes its own. */
  metrics?: WorkerMetrics;
}

const maxPathLength = 1024;

/** Decodes and checks the path of a page request; a bad one is a 400, never a 500. */
function pagePath(req: Request): string {
  const raw = req.path;
  if (raw.length > maxPathLength) throw new KioskError('badRequest', 'The address is too long.');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new KioskError('badRequest', 'The address is not valid percent-encoding.');
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(decoded)) throw new KioskError('badRequest', 'The address contains control characters.');
  return raw;
}

/** Builds the Express app. It never listens: server/index.ts and the tests do. */
export function createApp({ config, content, assets, metrics = new WorkerMetrics() }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  const renderDeps = { content, assets, siteUrl: config.siteUrl };

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
  app.use('/api', apiRouter(content));

  app.use(async (req: Request, res: Response) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.set('Allow', 'GET, HEAD');
      throw new KioskError('methodNotAllowed');
    }
    const path = pagePath(req);
    if (path.length > 1 && path.endsWith('/')) {
      res.set('Cache-Control', cacheControl.article).redirect(301, path.replace(/\/+$/, '') || '/');
      return;
    }
    const started = performance.now();
    const outcome = await renderPage(path, renderDeps);
    metrics.renderMs.record(performance.now() - started);
    metrics.countMode('ssr');
    res.set(outcome.headers);
    if (outcome.kind === 'redirect') {
      res.redirect(outcome.status, outcome.location);
      return;
    }
    res.status(outcome.status).type('html').send(outcome.html);
  });

  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    const answer = classify(error);
    if (answer.internal) log.error('request failed', { method: req.method, url: req.originalUrl, ...describeError(error) });
    if (res.headersSent) {
      next(error);
      return;
    }
    res.status(answer.status);
    res.set('Cache-Control', answer.status === 404 ? cacheControl.notFound : cacheControl.noStore);
    res.removeHeader('X-Render-Mode');
    if (req.path.startsWith('/api/') || req.path === '/api') {
      res.json({ error: { code: answer.code, message: answer.message } });
      return;
    }
    const page = renderErrorPage(answer.status, answer.message, renderDeps);
    res.type(page.contentType).send(page.html);
  });

  return app;
}
