// The last good copies' time budget under saturation, with the real built cluster and Nginx:
// workers kept full by the bench's load generator spend at most about 1% of their time writing
// copies, as LastGoodWriteTime counts it. The generator (C, epoll), not a Node client: a Node
// client on these two cores would starve the workers of requests, and a worker waiting for
// requests is not saturated.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { admissionOf, freePort, freePortRange, loadConfig, repositoryRoot, seedTempStore, startBuiltServer, startLocalNginx } from '@kiosk/surface';
import { articlePaths } from './articles';
import { buildNativeGenerator, NativeGenerator } from './native-generator';

const workers = 2;
const cleanUp: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const step of cleanUp.reverse()) await step();
});

/** A series' value on /metrics, 0 while it is not there yet. */
function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

test('saturated workers spend at most about 1% of their time writing last good copies (LastGoodWriteTime)', async (t) => {
  const { dir, dbPath } = await seedTempStore(400, 5);
  cleanUp.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Readable by Nginx's workers, which run as nobody when Nginx is started as root.
  const lastGoodDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-last-good-'));
  fs.chmodSync(lastGoodDir, 0o755);
  cleanUp.push(() => fs.rmSync(lastGoodDir, { recursive: true, force: true }));
  const firstPort = await freePortRange(workers);
  const workerPorts = Array.from({ length: workers }, (_, i) => firstPort + i);
  const metricsPort = await freePort();
  const env = { LISTEN_MODE: 'per-worker', WEB_CONCURRENCY: String(workers), SSR_QUEUE_LIMIT: '2', PORT: String(firstPort), LAST_GOOD_DIR: lastGoodDir };
  const cluster = await startBuiltServer(dbPath, { ...env, METRICS_PORT: String(metricsPort) });
  cleanUp.push(async () => {
    await cluster.stop();
  });
  const nginx = await startLocalNginx({ listen: `127.0.0.1:${await freePort()}`, workerPorts, workerProcesses: 1, admission: admissionOf(loadConfig(env)) });
  cleanUp.push(() => nginx.stop());

  const generatorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-last-good-loadgen-'));
  cleanUp.push(() => fs.rmSync(generatorDir, { recursive: true, force: true }));
  const built = buildNativeGenerator(repositoryRoot, generatorDir);
  if (!('binary' in built)) throw new Error(built.error);
  const pathsFile = path.join(generatorDir, 'paths.json');
  fs.writeFileSync(pathsFile, JSON.stringify(articlePaths(dbPath)));
  const generator = new NativeGenerator(built.binary, pathsFile);
  cleanUp.push(() => generator.stop());

  const series = 'kiosk_last_good_write_seconds_total';
  const read = async () => ({ s: seriesValue(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(), series), at: performance.now() });
  const readings: Partial<Record<'measuring' | 'measured', Promise<{ s: number; at: number }>>> = {};
  const port = Number(nginx.params.listen.split(':')[1]);
  // 1 s first, not measured: the first second after an idle spell has the idle allowance.
  const result = await generator.run({ host: '127.0.0.1', port, ratePerS: 4_000, warmupS: 1, durationS: 3, timeoutMs: 5_000, maxConnections: 200 }, (phase) => {
    readings[phase] = read();
  });
  const [opened, closed] = [await readings.measuring!, await readings.measured!];
  const writtenMs = (closed.s - opened.s) * 1_000;
  const share = writtenMs / (workers * (closed.at - opened.at));
  const c = result.counts;
  t.diagnostic(
    `${c.ssr} rendered, ${c.lastGood} last good, ${c.shell} shells; ${writtenMs.toFixed(1)} ms writing copies in ${(closed.at - opened.at).toFixed(0)} ms: ${(100 * share).toFixed(2)}% of the workers' time`,
  );
  assert.ok(writtenMs > 0, 'copies were written in the window, and their time counted');
  assert.ok(c.shell + c.lastGood > 0, 'more offered than the workers render: every worker full');
  // 1%, with room for the write that crosses a window's allowance (paid back in the next windows)
  // and for a second read as less than busy on two shared cores: far below the idle share (50%).
  assert.ok(share <= 0.02, `${(100 * share).toFixed(2)}% of the workers' time spent writing copies`);
});
