// withDeadline over a real loopback socket: what a deadline counts when the worker's own event
// loop was held while the answer came in. Timers run before the loop reads its sockets, so a
// plain deadline that passed during the hold rejects an answer that is already waiting; with
// readFirst (the LISTEN connection's heartbeat) the answer is read first and taken.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import { DatabaseTimeout, withDeadline } from './postgres-listener';

/**
 * A server in another process (as PostgreSQL is) that answers whatever it is sent at once; `ask`
 * sends one line and resolves on the answer.
 */
async function echo(): Promise<{ ask(): Promise<string>; close(): Promise<void> }> {
  const code = `const s = require('net').createServer((c) => c.on('data', (d) => c.write(d)).on('error', () => {}));
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  const client = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', resolve));
  return {
    ask: () =>
      new Promise<string>((resolve) => {
        client.once('data', (chunk) => resolve(chunk.toString()));
        client.write('SELECT 1\n');
      }),
    async close() {
      client.destroy();
      child.kill();
      await once(child, 'exit');
    },
  };
}

/** Holds this process's event loop, as a long render or a backlog of requests does. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

/** Resumes in the loop's check phase: the next phase to run is the next turn's timers, before its sockets are read. */
const checkPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

test('an answer that came in while the loop was held is taken with readFirst, and counted late without it', async () => {
  const server = await echo();
  try {
    // The answer is back within a millisecond or so; the loop is held for 300 ms past the 100 ms
    // deadline. On a machine too busy to run the echo within those 400 ms the answer is not
    // there yet and readFirst rightly rejects, so that case is tried up to five times; a plain
    // deadline rejects every time, the answer there or not.
    let taken: string | undefined;
    for (let attempt = 0; attempt < 5 && taken === undefined; attempt++) {
      await checkPhase();
      const answer = server.ask();
      const patient = withDeadline(answer, 100, { readFirst: true });
      hold(400);
      taken = await patient.catch((error: unknown) => {
        assert.ok(error instanceof DatabaseTimeout, String(error));
        return undefined;
      });
      await answer; // read before the next line is sent
    }
    assert.equal(taken, 'SELECT 1\n');

    await checkPhase();
    const answer = server.ask();
    const plain = withDeadline(answer, 100);
    hold(400);
    await assert.rejects(plain, DatabaseTimeout, 'the plain deadline fires before the waiting answer is read');
    await answer;
  } finally {
    await server.close();
  }
});

test('readFirst still rejects an answer that does not come', async () => {
  const silent = new Promise<string>(() => undefined);
  const started = performance.now();
  await assert.rejects(withDeadline(silent, 100, { readFirst: true }), DatabaseTimeout);
  assert.ok(performance.now() - started >= 99);
});
