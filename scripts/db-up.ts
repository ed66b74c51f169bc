// npm run db:up: a PostgreSQL content store for local development, from the same harness the
// tests use (scripts/db/cluster.ts): a cluster in data/postgres/ (kept between runs), on
// loopback, migrated, its CONTENT_DATABASE_URL printed. It runs until Ctrl-C, then stops.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { portFlag, readCommandLine, refuse, UsageError } from './cli';
import { startCluster } from './db/cluster';
import { migrate } from './db/migrate';

const usage = `Usage: npm run db:up [-- --port N] [-- --dir PATH]

Starts a local PostgreSQL for Kiosk (Debian's server binaries, as scripts/setup-system.sh
installs them), applies the migrations and prints the CONTENT_DATABASE_URL to use. Stops
the server on Ctrl-C; the data stays in the directory for the next run.

Options:
  --port N     loopback port (default 5433, beside a system PostgreSQL on 5432)
  --dir PATH   data directory (default data/postgres)
  -h, --help   show this help
`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const command = { name: 'db:up', usage, options: { port: { type: 'string' }, dir: { type: 'string' } } } as const;
const line = readCommandLine(command);
if (!line.ok) process.exit(line.exitCode);
const { values } = line;
let port: number;
try {
  port = portFlag('--port', values.port) ?? 5433;
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.exit(refuse(command, error.message));
}
const dataDir = path.resolve(values.dir ?? path.join(root, 'data/postgres'));

const cluster = await startCluster({ dataDir, port, durable: true });
const applied = await migrate(cluster.url);
console.log(`db:up: PostgreSQL on 127.0.0.1:${port}, data in ${dataDir}`);
console.log(`db:up: migrations applied: ${applied.length === 0 ? 'none (up to date)' : applied.join(', ')}`);
console.log(`\nCONTENT_DATABASE_URL=${cluster.url}\n`);
console.log(`Seed it:   npm run seed -- --database-url ${cluster.url}`);
console.log(`Serve it:  CONTENT_DATABASE_URL=${cluster.url} npm start`);
console.log('Ctrl-C stops the server.');

function stop() {
  console.log('db:up: stopping PostgreSQL');
  cluster.stop();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
