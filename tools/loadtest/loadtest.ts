// npm run loadtest: one Gatling simulation of loadtest/ against a running site, then a
// summary read from Gatling's HTML report. `npm run loadtest -- --help` for the flags.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { refuse, sqliteContentPath, UsageError } from '@kiosk/surface';
import { firstFeedPath, loadtestDir, writeFeed } from './feed';
import { readReport } from './gatling-report';
import { runGatling } from './gatling-run';
import { readOptions, usage, type LoadtestOptions } from './options';
import { renderSummary, summarize } from './summary';

const startedMs = performance.now();

function progress(line: string): void {
  const s = Math.round((performance.now() - startedMs) / 1000);
  process.stderr.write(`[loadtest ${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}\n`);
}

class CannotRun extends Error {}

/** The JDK Maven will use: $JAVA_HOME's when set, as mvnw does, else the one on PATH. */
function requireJava(): string {
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  const result = spawnSync(java, ['-version'], { encoding: 'utf8' });
  const version = /version "([^"]+)"/.exec(`${result.stderr}${result.stdout}`)?.[1];
  if (result.error || !version) {
    throw new CannotRun(`no Java found (${java}): Gatling needs a JDK 17 or newer; \`bash scripts/setup-system.sh\` installs one`);
  }
  const major = Number(version.startsWith('1.') ? version.split('.')[1] : version.split(/[.+-]/)[0]);
  if (!(major >= 17)) throw new CannotRun(`Java ${version} found (${java}); Gatling 3.15 needs 17 or newer: \`bash scripts/setup-system.sh\``);
  return version;
}

function prepareFeed(options: LoadtestOptions): void {
  const db = options.feedSourceDb;
  if (db && (options.rewriteFeed || !fs.existsSync(options.feed))) {
    const count = writeFeed(db, options.feed);
    progress(`wrote the URL feed: ${count} published articles of ${db} to ${path.relative(process.cwd(), options.feed)}`);
  }
  if (!fs.existsSync(options.feed)) throw new CannotRun(`no URL feed at ${options.feed}`);
}

/** One request before Maven starts: is the site there, and does it serve the feed's articles? */
async function checkSite(options: LoadtestOptions): Promise<void> {
  const url = options.baseUrl + firstFeedPath(options.feed);
  let status: number;
  try {
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000), headers: { accept: 'text/html' } });
    await res.arrayBuffer();
    status = res.status;
  } catch (error) {
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    throw new CannotRun(
      `cannot reach ${options.baseUrl} (${reason}): is the site running there? (\`npm start\` serves http://localhost:3000)`,
    );
  }
  if (status !== 200) {
    const hint =
      status === 404
        ? ': the feed lists articles this site does not have; make the feed from the store it serves (--db PATH) or pass your own (--feed FILE)'
        : '';
    throw new CannotRun(`${url} answered ${status}, not 200${hint}`);
  }
}

async function main(args: string[]): Promise<number> {
  let options: LoadtestOptions | null;
  try {
    options = readOptions(args, sqliteContentPath());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refuse({ name: 'loadtest', usage }, error.message);
  }
  if (options === null) {
    console.log(usage);
    return 0;
  }

  const logFile = path.join(loadtestDir, 'target', `loadtest-${options.simulation}.log`);
  try {
    const java = requireJava();
    prepareFeed(options);
    await checkSite(options);
    const settings = Object.entries(options.properties)
      .filter(([key]) => !['baseUrl', 'urlFeed'].includes(key))
      .map(([key, value]) => `${key}=${value}`)
      .join(' ');
    progress(`${options.simulation} (${options.simulationClass}) against ${options.baseUrl}: ${settings}`);
    progress(`Maven and Java ${java}: a first run downloads Maven and Gatling into ~/.m2 (about 75 MB)`);
    const run = await runGatling({
      simulationClass: options.simulationClass,
      properties: options.properties,
      description: `npm run loadtest -- ${args.join(' ')}`,
      verbose: options.verbose,
      logFile,
      progress,
    });
    if (run.exitCode !== 0 || run.reportDir === null) {
      throw new CannotRun(`Gatling did not finish (Maven exit code ${run.exitCode}); all it printed is in ${logFile}`);
    }

    const summary = summarize(readReport(run.reportDir), options.stepSeconds);
    const summaryFile = path.join(run.reportDir, 'kiosk-summary.json');
    fs.writeFileSync(summaryFile, JSON.stringify({ simulation: options.simulation, baseUrl: options.baseUrl, properties: options.properties, ...summary }, null, 2) + '\n');
    const failed = summary.all.ko;
    progress(failed === 0 ? 'done: no request failed' : `done: ${failed} requests failed (KO); the report's Errors table says why`);
    console.log(`HTML report: ${pathToFileURL(path.join(run.reportDir, 'index.html')).href}`);
    console.log(`Summary (JSON): ${summaryFile}\n`);
    console.log(renderSummary(summary));
    return 0;
  } catch (error) {
    if (error instanceof CannotRun) console.error(`loadtest: ${error.message}`);
    else console.error('loadtest: failed', error);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
