// The production entry as operators run it: the throng primary and its workers, from the build.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { seedTempStore, startBuiltServer } from '../test/server';
import { waitFor } from '../test/wait';

let dir: string;

before(async () => {
  ({ dir } = await seedTempStore(600, 10));
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

class CutOff extends Error {
  override name = 'CutOff';
}

/** Rejects with CutOff when a response had begun and did not complete. */
function get(url: string, agent?: http.Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => {
        const expected = Number(res.headers['content-length']);
        if (res.complete && (!expected || expected === bytes)) resolve({ status: res.statusCode ?? 0, bytes });
        else reject(new CutOff(`got ${bytes} of ${expected} bytes`));
      });
      res.on('error', () => reject(new CutOff(`response aborted after ${bytes} bytes`)));
      res.on('aborted', () => reject(new CutOff(`response aborted after ${bytes} bytes`)));
    });
    req.on('error', reject);
  });
}

test('WEB_CONCURRENCY workers serve the site, and a killed worker is replaced', async () => {
  const server = await startBuiltServer(`${dir}/kiosk.sqlite`, { WEB_CONCURRENCY: '2' });
  try {
    const pids = server.workerPids();
    assert.equal(new Set(pids).size, 2);
    for (const path of ['/', '/news', '/api/front']) assert.equal((await get(server.baseUrl + path)).status, 200, path);

    process.kill(pids[0]!, 'SIGKILL');
    await waitFor('a replacement worker', () => server.workerPids().length === 3);
    const now = server.workerPids();
    assert.ok(!pids.includes(now[2]!));
    for (let i = 0; i < 20; i++) assert.equal((await get(server.baseUrl + '/')).status, 200);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

/** A process's command line as the kernel holds it. */
function commandLine(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

test("each worker's young generation is bounded by WORKER_SEMI_SPACE_MB (8 MB unless set; 0 leaves V8's own) and runs without pretenuring (WORKER_PRETENURING=on gives it back) and with a memory reducer that does not compact every page (WORKER_MEMORY_REDUCER_FAVORS_MEMORY=on gives that back), replacements too", async () => {
  const bounded = await startBuiltServer(`${dir}/kiosk.sqlite`);
  try {
    const [pid] = bounded.workerPids();
    assert.ok(commandLine(pid!).includes('--max-semi-space-size=8'), commandLine(pid!).join(' '));
    assert.ok(commandLine(pid!).includes('--no-allocation-site-pretenuring'), 'pretenuring off unless WORKER_PRETENURING=on');
    assert.ok(
      commandLine(pid!).includes('--no-memory-reducer-favors-memory'),
      'the memory reducer collects as the others unless WORKER_MEMORY_REDUCER_FAVORS_MEMORY=on',
    );
    assert.ok(!commandLine(bounded.process.pid!).includes('--no-memory-reducer-favors-memory'), 'the primary keeps V8’s own memory reducer');
    assert.ok(!commandLine(bounded.process.pid!).some((flag) => flag.startsWith('--max-semi-space-size')), 'the primary keeps its own');
    assert.ok(!commandLine(bounded.process.pid!).includes('--no-allocation-site-pretenuring'), 'the primary keeps V8’s own pretenuring');
    process.kill(pid!, 'SIGKILL');
    await waitFor('a replacement worker', () => bounded.workerPids().length === 2);
    assert.ok(commandLine(bounded.workerPids()[1]!).includes('--max-semi-space-size=8'));
    assert.ok(commandLine(bounded.workerPids()[1]!).includes('--no-memory-reducer-favors-memory'));
  } finally {
    assert.equal(await bounded.stop(), 0);
  }
  const unbounded = await startBuiltServer(`${dir}/kiosk.sqlite`, {
    WORKER_SEMI_SPACE_MB: '0',
    WORKER_PRETENURING: 'on',
    WORKER_MEMORY_REDUCER_FAVORS_MEMORY: 'on',
  });
  try {
    assert.ok(!commandLine(unbounded.workerPids()[0]!).some((flag) => flag.startsWith('--max-semi-space-size')));
    assert.ok(!commandLine(unbounded.workerPids()[0]!).some((flag) => flag.includes('pretenuring')), 'WORKER_PRETENURING=on: V8’s own');
    assert.ok(!commandLine(unbounded.workerPids()[0]!).some((flag) => flag.includes('memory-reducer')), 'WORKER_MEMORY_REDUCER_FAVORS_MEMORY=on: V8’s own');
  } finally {
    assert.equal(await unbounded.stop(), 0);
  }
});

async function drainUnderLoad(signalEveryProcess: boolean) {
  // A grace period no honest drain nears, even on a busy machine: the worker says when it runs
  // out ("grace period over") and closes what is left, which the test would see.
  const server = await startBuiltServer(`${dir}/kiosk.sqlite`, { WEB_CONCURRENCY: '2', SHUTDOWN_GRACE_MS: '30000' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const completed: number[] = [];
  const failures: string[] = [];
  let stopping = false;

  const unserved: string[] = [];
  async function reader() {
    for (;;) {
      try {
        const { status } = await get(`${server.baseUrl}/`, agent);
        completed.push(status);
      } catch (error) {
        if (error instanceof CutOff) {
          failures.push(error.message);
        } else if (stopping) {
          // A connection made after SIGTERM is refused, or reset before any answer when the
          // cluster primary had already accepted it: either way the client knows it got nothing.
          unserved.push((error as NodeJS.ErrnoException).code ?? String(error));
          return;
        } else {
          failures.push(String(error));
        }
      }
    }
  }

  const readers = Array.from({ length: 16 }, reader);
  // Under way, whatever the machine's speed: SIGTERM lands once 50 requests have been answered.
  await waitFor('50 requests answered before SIGTERM', () => completed.length >= 50, { everyMs: 20 });
  const before = completed.length;
  stopping = true;
  const servingWorkers = server.workerPids();
  // As systemd stops a service: every process of the group at once; throng then forwards the
  // primary's copy to each worker while it is already draining.
  server.process.kill('SIGTERM');
  if (signalEveryProcess) for (const pid of servingWorkers) process.kill(pid, 'SIGTERM');
  await Promise.all(readers);
  const code = await server.exited;
  agent.destroy();

  assert.ok(before >= 50, `load was running (${before} requests before SIGTERM)`);
  console.log(`after SIGTERM: ${completed.length - before} answered, unserved: ${unserved.join(' ') || 'none'}`);
  assert.deepEqual(failures, [], 'no response was cut off');
  assert.ok(
    unserved.every((c) => c === 'ECONNREFUSED' || c === 'ECONNRESET'),
    unserved.join(),
  );
  assert.ok(completed.length > before, 'requests in flight at SIGTERM were answered');
  assert.ok(
    completed.every((s) => s === 200),
    'every answered request was a 200',
  );
  assert.equal(code, 0);
  assert.match(server.output(), /"draining"/);
  assert.doesNotMatch(server.output(), /grace period over/, 'drained inside the grace period, nothing closed on a request');
  // A worker that finishes draining before the primary's own SIGTERM is revived by throng and
  // then stopped by it at start-up; the workers that were serving must all have exited 0.
  const exitedBySignal = server
    .output()
    .split('\n')
    .filter((line) => line.includes('"worker exited"'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);
  assert.deepEqual(
    exitedBySignal.filter((pid) => servingWorkers.includes(pid)),
    [],
    'no serving worker died of a signal',
  );
}

test('SIGTERM under load: requests in flight finish, new connections are refused, exit 0', () => drainUnderLoad(false));

// systemd stops a service by signalling its whole control group, and throng forwards the
// primary's SIGTERM to each worker too: the second signal must not kill a worker mid-drain
// (a race: this test's timing does not always reproduce it).
test('SIGTERM to every process at once, then the one throng forwards: serving workers still drain and exit 0', () => drainUnderLoad(true));
