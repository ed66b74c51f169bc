// Bad input against the production build (NODE_ENV=production, the real client build beside
// the server bundle): the answers whose headers or files only the built server has.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { assertSafeAnswer, seedTempStore, sendRaw, startBuiltServer, type BuiltServer } from '../test/server';

let dir: string;
let server: BuiltServer;

before(async () => {
  ({ dir } = await seedTempStore(100, 5));
  server = await startBuiltServer(`${dir}/kiosk.sqlite`);
});

after(async () => {
  assert.equal(await server.stop(), 0);
  fs.rmSync(dir, { recursive: true, force: true });
});

const send = (method: string, target: string | Buffer, headers = '') => sendRaw(server.baseUrl, method, target, headers);

test('production answers to bad input: 4xx, no stack traces or paths, nothing off the site', async () => {
  const cases: [string, string | Buffer, number[], string?][] = [
    ['GET', '/%E0%A4%A', [400]],
    ['GET', '/news/%00', [400]],
    ['GET', Buffer.from([0x2f, 0x00]), [400]],
    ['GET', `/${'a'.repeat(2_000)}`, [400]],
    ['GET', '/sport', [431], `X-Padding: ${'a'.repeat(20_000)}\r\n`],
    ['GET', '/api/articles/abc', [400]],
    ['GET', '/api/sections/weather', [404]],
    ['POST', '/', [405]],
    ['DELETE', '/api/front', [405]],
    ['GET', '//evil.example/', [404]],
    ['GET', 'http://evil.example/', [400]],
  ];
  for (const [method, target, statuses, headers] of cases) {
    const what = `${method} ${String(target).slice(0, 40)}`;
    const res = await send(method, target, headers);
    assertSafeAnswer(res, what);
    assert.ok(statuses.includes(res.status), `${what}: ${res.status}`);
    if (res.status === 405) assert.equal(res.headers.allow, 'GET, HEAD', what);
    assert.equal(res.headers.location, undefined, what);
  }
});

test('the client assets never lead to the server bundle or the build', async () => {
  for (const target of [
    '/assets/../../server/index.cjs',
    '/assets/%2e%2e/%2e%2e/server/index.cjs',
    '/assets/..%2f..%2fserver%2findex.cjs',
    '/assets/%2e%2e%2fmanifest.json',
    '/assets/..\\..\\server\\index.cjs',
  ]) {
    const res = await send('GET', target);
    assertSafeAnswer(res, target);
    assert.ok([400, 403, 404].includes(res.status), `${target}: ${res.status}`);
    assert.doesNotMatch(res.body, /webpack|"scripts"|require\(/, `${target}: no file content`);
  }
});

test('the worker took all of it in its stride', () => {
  assert.equal(server.output().match(/"worker listening"/g)?.length, 1, server.output());
  assert.doesNotMatch(server.output(), /uncaught|unhandled/i);
});
