// Shared by the server's tests: a real SQLite store in a temporary directory and the real
// app listening on a real socket on an ephemeral port.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Assets } from './assets';
import { createApp } from './app';
import { seedStore } from './content/seed';
import { openSqliteStore, type SqliteStore } from './content/sqlite';

export async function seedTempStore(published = 600, drafts = 20): Promise<{ dir: string; dbPath: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-test-'));
  const dbPath = path.join(dir, 'kiosk.sqlite');
  await seedStore(dbPath, { published, drafts, log: () => {} });
  return { dir, dbPath };
}

/**
 * The app tests run without a client build, so the documents name these asset paths
 * instead of the manifest's; the browser tests run the real build.
 */
export const testAssets: Assets = { scripts: ['/assets/main.test.js'], styles: ['/assets/main.test.css'] };

export interface TestServer {
  baseUrl: string;
  content: SqliteStore;
  close(): Promise<void>;
}

export async function serveTestApp(dbPath: string, distDir = path.join(os.tmpdir(), 'kiosk-no-dist')): Promise<TestServer> {
  const content = openSqliteStore(dbPath, { readonly: true });
  const app = createApp({ config: { siteUrl: 'https://kiosk.example', distDir }, content, assets: testAssets });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    content,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      content.close();
    },
  };
}

/** The HTML text of an element with this id, or of the whole body; tags stripped. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, ' ');
}
