// What the tools in tools/ may use of Kiosk, and all they may use. Each tool is an npm package
// of its own (a workspace) that depends on this one; test/boundaries.test.ts fails when a tool
// imports any other file of the repository, or another tool's, and when product code (server/,
// src/, client/, scripts/) imports a tool, or this surface anything of test/. So the product
// can change inside without breaking a tool, and a change to this list is a change to a
// contract, made on purpose. Tool tests may also use the test harnesses in test/; a tool's
// own code gets what operators' commands need from scripts/ through this list, never from the
// harness. docs/architecture.md describes the list.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: tools read and write files beside the product (cloudformation/, loadtest/, bench-results/). */
export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Configuration, read and validated as the server reads it.
export { ConfigError, loadConfig, sqliteContentPath } from '../server/config';

// Content: the seed's made-up articles (deterministic), a PostgreSQL store filled with them,
// and editors' signed preview links.
export { generateArticles } from '../server/content/seed';
export { seedPostgres } from '../server/content/postgres-seed';
export { previewPath } from '../server/preview';

// Running the product on this machine: build if stale, a seeded SQLite store in a temporary
// directory, the built cluster as operators run it, free ports, a throwaway PostgreSQL cluster,
// Nginx from the repository's template, and the admission limits Nginx is rendered with.
export { prepareToServe } from '../scripts/prepare';
export { publishedArticlePaths, readEveryPage, seedTempStore, startBuiltServer, type BuiltServer } from '../scripts/built-server';
export { freePort, freePortRange } from '../scripts/ports';
export { startCluster, type Cluster } from '../scripts/db/cluster';
// A process's children from /proc: a cluster's workers, Nginx's worker processes.
export { childPids } from '../scripts/processes';
// Where a process's resident memory is, by kind (files, malloc's arenas, V8's heap and the rest).
export { residentMemory, type ResidentMemory } from '../scripts/resident-memory';
export { startLocalNginx, type LocalNginx } from '../scripts/nginx/local';
export { admissionOf } from '../scripts/nginx/render';

// The names Kiosk's workers publish their metrics under in CloudWatch, and the environment's
// .ebextensions as Elastic Beanstalk reads them (one file parsed, the option settings, the
// environment properties and one setting's value, the CloudFormation resources): what the
// dashboard, the alarms and the capacity simulator's scaling policy are built from.
export { dimensionNames, metricNames } from '../server/metrics/cloudwatch';
// The series /metrics serves them under: the bench reads the content cache's counters, the
// major collections and the event-loop stalls there.
export { workerCounters, workerDistributions } from '../server/metrics/catalog';
export {
  environmentProperties,
  loadConfigFiles,
  optionSettings,
  parseConfigFile,
  resolveOptionSettings,
  resources,
  settingValue,
  type ConfigFile,
  type OptionSetting,
} from '../scripts/deploy/ebextensions';

// The edge purge's budget (server/edge/budget.ts): the delay a monthly budget of invalidation
// paths gives a steady stream of pushes, which the capacity simulator's --edge report tabulates.
export { budgetDelay, defaultMonthlyPaths, freePathsPerMonth, monthS, pathPriceUsd, shortestPurgedLifetimeS, type BudgetDelay } from '../server/edge/budget';
export { maxItemsPerCall } from '../server/edge/purge';

// The seeded generator the seed's made-up articles are drawn with (the same seed gives the same
// sequence on every machine): the capacity simulator draws launch times with it, so a --seed
// gives the same runs everywhere.
export { seededRandom } from '../server/content/seeded-random';

// What the benchmark (tools/bench) runs and measures besides the above: the article page rendered
// in process and over HTTP, and the machinery around a measured server.
// The seed written into a SQLite store: the bench's 10,000 articles, the same on every machine.
export { seedStore } from '../server/content/seed';
// A content store opened as a worker opens it: the in-process render references read through it.
export { openContent } from '../server/content/open';
// The built client's asset list, which every rendered document names.
export { loadAssets, type Assets } from '../server/assets';
// The whole in-process page pipeline, as a worker runs it, and the chrome it can render once.
export { buildChrome, renderPage, type RenderDeps } from '../server/render';
// The document around a rendered page, and a page's data loaded as the server loads it.
export { renderDocument } from '../server/document';
export { PageState } from '../server/page-state';
// The React app, the article page and the route table: what renderToString renders.
export { App } from '../src/App';
export { ArticlePage } from '../src/pages/ArticlePage';
export { resolveRoute, type PageResult } from '../src/routes';
// The Redux store a page renders from, filled the way the server fills it.
export { createStore, rootReducer, type AppStore, type RootState } from '../src/store';
export { storeData } from '../src/store/page-data';
// The embedded page state: its element's id and the escaping that writes it.
export { serializeState, stateElementId } from '../src/page-contract';
// An article's shape (what the bench's churn pushes), and how many headlines the full latest list holds.
export { latestListSize, type Article } from '../src/content';
// A path under a route table entry's prefix: where the churn pushes as the CMS does (ingest).
export { pathUnder } from '../src/request-kinds';
// Why dist/ is older than the sources (null when it is not): the bench records how its build came to be.
export { staleBuildReason } from '../scripts/build-state';
// The Nginx binary and whether a port accepts connections: the bench starts a bare Nginx of its own.
export { accepts, nginxBinary } from '../scripts/nginx/local';
// Where PostgreSQL's server binaries are: the bench records the version it measured.
export { postgresBinDir } from '../scripts/db/cluster';

// The tools' small library, shared with the commands in scripts/ (which may not import a tool, so
// it lives on the product's side): a command line read as every Kiosk command reads it (--help,
// exit 2 on a flag it does not know or a bad value), and the median and percentile, each defined once.
export { numberFlag, parseCommandLine, portFlag, readCommandLine, refuse, runCommand, UsageError, wholeNumberFlag } from '../scripts/cli';
export { median, percentile } from '../scripts/statistics';
