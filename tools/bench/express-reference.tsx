// The bare-Express reference over HTTP: Express 5 serving Kiosk's article page from memory
// (tools/bench/reference-page.tsx), with its defaults but for the ETag, which Kiosk does not
// compute for pages either (hashing 57 KB per request would be work Kiosk is not charged with).
// The bench measures it beside Kiosk with the DOM budget off (the same page, every block
// rendered) and reports the ratio.
// Usage (by the orchestrator only): node --import tsx tools/bench/express-reference.tsx PORT DB DIST PATHS_FILE
import express from 'express';
import fs from 'node:fs';
import { loadAssets } from '@kiosk/surface';
import { preloadPages, renderReferencePage } from './reference-page';

const [portArg = '', dbPath = '', distDir = '', pathsFile = ''] = process.argv.slice(2);
const assets = loadAssets(distDir);
const pages = await preloadPages(dbPath, JSON.parse(fs.readFileSync(pathsFile, 'utf8')) as string[]);
const app = express();
app.set('etag', false);

app.get('/:section/:id', (req, res) => {
  const preloaded = pages.get(req.path);
  if (!preloaded) {
    res.status(404).send('Not found');
    return;
  }
  res.type('html').send(renderReferencePage(preloaded, assets));
});

const server = app.listen(Number(portArg), () => console.log(`express reference listening on ${portArg} (${pages.size} pages in memory)`));
// The same socket settings as a Kiosk worker, so the comparison is of what runs per request.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
