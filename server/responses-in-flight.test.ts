// What the worker's registry of responses in flight (server/responses-in-flight.ts) does, and
// what it must not do: keep the responses that passed through it alive into V8's old generation.
// The second test runs a child Node with the worker's young generation (8 MB semi-spaces, no
// pretenuring, as server/index.ts starts workers) and sums what its scavenges promoted, as
// --trace-gc-nvp reports it, for 60,000 responses through the registry and, as the control that
// shows the measure can fail, through a Set as the worker kept them before.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ResponsesInFlight } from './responses-in-flight';

function fakeResponse(): http.ServerResponse & EventEmitter {
  return Object.assign(new EventEmitter(), { headersSent: false }) as unknown as http.ServerResponse & EventEmitter;
}

test('a response counts until it closes, its slot is reused, and only unwritten ones are visited', () => {
  const registry = new ResponsesInFlight();
  const [a, b, c] = [fakeResponse(), fakeResponse(), fakeResponse()];
  registry.add(a);
  registry.add(b);
  assert.equal(registry.size, 2);
  a.emit('close');
  a.emit('close');
  assert.equal(registry.size, 1, 'a second close releases nothing');
  registry.add(c);
  assert.equal(registry.size, 2);
  (b as { headersSent: boolean }).headersSent = true;
  const visited: http.ServerResponse[] = [];
  registry.forEachUnwritten((res) => visited.push(res));
  assert.deepEqual(visited, [c]);
  b.emit('close');
  c.emit('close');
  assert.equal(registry.size, 0);
  registry.forEachUnwritten(() => assert.fail('nothing is in flight'));
});

const child = `
const { EventEmitter } = require('node:events');
const [modulePath, arm] = process.argv.slice(-2);
const { ResponsesInFlight } = require(modulePath);
function setRegistry() {
  const set = new Set();
  function forget() { set.delete(this); }
  return { add(res) { set.add(res); res.on('close', forget); } };
}
const registry = arm === 'set' ? setRegistry() : new ResponsesInFlight();
globalThis.gc(); globalThis.gc();
const inFlight = [];
let garbage = 0;
for (let i = 0; i < 60000; i++) {
  const res = Object.assign(new EventEmitter(), { headersSent: false, body: new Array(100).fill(i) });
  registry.add(res);
  inFlight.push(res);
  if (inFlight.length > 8) inFlight.shift().emit('close');
  for (let j = 0; j < 40; j++) garbage += new Array(100).fill(j).length;
}
process.stdout.write('garbage ' + garbage + '\\n');
`;

function promotedMb(arm: 'slots' | 'set'): number {
  const module = path.join(path.dirname(fileURLToPath(import.meta.url)), 'responses-in-flight.ts');
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--max-semi-space-size=8', '--no-allocation-site-pretenuring', '--trace-gc-nvp', '--import', 'tsx', '-e', child, '--', module, arm],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const scavenges = out.split('\n').filter((line) => /\bgc=s\b/.test(line));
  assert.ok(scavenges.length > 20, `the child scavenged (${scavenges.length} times)`);
  return scavenges.reduce((sum, line) => sum + Number(/promoted=(\d+)/.exec(line)![1]), 0) / 1_048_576;
}

test('responses that passed through the registry die young: what scavenges promote stays small, where a Set promoted them all', () => {
  const slots = promotedMb('slots');
  const set = promotedMb('set');
  // 60,000 responses of ~1 KB: the Set promotes about 60 MB of them; the slots almost nothing.
  assert.ok(set > 20, `the control promotes what passed through a Set (${set.toFixed(1)} MB)`);
  assert.ok(slots < set / 10 && slots < 4, `the registry promoted ${slots.toFixed(1)} MB against the Set's ${set.toFixed(1)} MB`);
});
