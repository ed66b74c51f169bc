// Second entry of the server bundle (dist/server/seed-if-empty.cjs): seeds the content store
// at CONTENT_DB_PATH if it is empty, then exits. The Procfile runs it before the cluster, so a
// fresh Elastic Beanstalk instance serves the sample newsroom without a build tool on board
// (scripts/seed.ts needs tsx, a devDependency the instance does not install).
import { loadConfig } from './config';
import { seedIfEmpty } from './content/seed';
import { describeError, log } from './log';

async function main(): Promise<void> {
  // The whole config, not just the path: a bad environment fails here with the same message
  // the cluster would give, before any seeding work.
  const { contentDbPath } = loadConfig();
  const result = await seedIfEmpty(contentDbPath, { log: (line) => log.info(line) });
  if (result.seeded) {
    log.info('content store seeded', { contentDbPath, articles: result.inserted, ms: result.ms });
  } else {
    log.info('content store has articles, not seeding', { contentDbPath });
  }
}

main().catch((error: unknown) => {
  log.error('seeding the content store failed', describeError(error));
  process.exit(1);
});
