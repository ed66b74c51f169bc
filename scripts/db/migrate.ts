// The schema of the PostgreSQL content store, migrated by node-pg-migrate from the SQL files in
// migrations/. `npm run db:migrate` and the deployment's leader-only container command
// (.ebextensions/20-database-migrations.config) run node-pg-migrate's own command line with the
// same directory, table and variable (a test checks the three agree); tests and db:up call this.
// Never run by workers at start-up: a new version migrates once, before it serves.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const migrationsDir = path.join(root, 'migrations');
/** node-pg-migrate's default, named here so the command lines can be checked against it. */
export const migrationsTable = 'pgmigrations';
/** The variable the command lines read the connection string from. */
export const databaseUrlVariable = 'CONTENT_DATABASE_URL';

/** Applies every migration not yet applied, under node-pg-migrate's advisory lock; returns their names. */
export async function migrate(databaseUrl: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: migrationsDir,
    migrationsTable,
    direction: 'up',
    count: Infinity,
    checkOrder: true,
    log,
  });
  return applied.map((m) => m.name);
}
