// What the CMS's ingest endpoint refuses, over a real socket against a real SQLite file: times
// that name no real moment or fall outside the archive's range, C1 control characters, bodies
// that are not UTF-8, keys given twice. Each is a 400 naming the field (or saying what is wrong
// with the body as a whole), and the store is as it was: the published article unchanged, a new
// id still absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { seedTempStore, serveTestApp, type TestServer } from '../test/server';

const token = 'ingest-token-for-tests-0123456789abcdef';

let dir: string;
let server: TestServer;
let serial = 700_000;
/** Published in `before`; every refused write is also aimed at it, and it must not change. */
const existing = '202611220800000001';

function newId(): string {
  serial += 1;
  return `202611220800${String(serial).padStart(6, '0')}`;
}

function article(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    section: 'world',
    status: 'published',
    title: 'Harbour reopens after the storm',
    lead: 'Ferries run again from the morning tide.',
    author: 'Kiosk Desk',
    image: { src: '/media/harbour.svg', alt: 'The harbour at dawn', width: 1200, height: 675 },
    publishedAt: '2026-11-22T08:00:00Z',
    modifiedAt: '2026-11-22T08:00:00Z',
    body: [{ type: 'paragraph', text: 'The harbour reopened at six.' }],
    ...overrides,
  };
}

function put(id: string, body: string | Uint8Array<ArrayBuffer>, contentType = 'application/json') {
  return fetch(`${server.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType },
    body,
  });
}

/** The API's answer for an article: its status and the article as stored (the teasers around it move with other writes). */
async function answerFor(id: string): Promise<{ status: number; article: Record<string, unknown> | null }> {
  const res = await fetch(`${server.baseUrl}/api/articles/${id}`);
  const body = (await res.json()) as { article?: Record<string, unknown> };
  return { status: res.status, article: body.article ?? null };
}

/**
 * Sends `body` to the published article and to a new id; both answers must be `status` with a
 * JSON error whose message matches `message`, and neither write may have reached the store.
 */
async function expectRefused(body: string | Uint8Array<ArrayBuffer>, status: number, message: RegExp, contentType?: string): Promise<void> {
  const fresh = newId();
  const stored = await answerFor(existing);
  assert.equal(stored.status, 200);
  for (const id of [existing, fresh]) {
    const res = await put(id, body, contentType);
    const text = await res.text();
    assert.equal(res.status, status, `${id}: ${text}`);
    const { error } = JSON.parse(text) as { error: { code: string; message: string } };
    assert.match(error.message, message);
  }
  assert.deepStrictEqual(await answerFor(existing), stored, 'the published article is unchanged');
  assert.equal((await answerFor(fresh)).status, 404, 'the new id was not written');
}

before(async () => {
  ({ dir } = await seedTempStore(50, 2));
  server = await serveTestApp(`${dir}/kiosk.sqlite`, undefined, { INGEST_TOKEN: token });
  const created = await put(existing, JSON.stringify(article({ title: 'The article every refused write aims at' })));
  assert.equal(created.status, 201, await created.text());
  assert.equal((await answerFor(existing)).article?.title, 'The article every refused write aims at');
});

after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ingest: times', () => {
  test('30 February is not a real day: 400 naming publishedAt, nothing stored', async () => {
    await expectRefused(JSON.stringify(article({ publishedAt: '2026-02-30T00:00:00Z' })), 400, /^publishedAt is not a real time/);
  });

  test('hour 25 and 24:00 are not real times either', async () => {
    await expectRefused(JSON.stringify(article({ publishedAt: '2026-11-22T25:00:00Z' })), 400, /^publishedAt is not a real time/);
    await expectRefused(JSON.stringify(article({ publishedAt: '2026-11-22T24:00:00Z' })), 400, /^publishedAt is not a real time/);
  });

  test('year 9999 is refused: publishedAt may be at most five minutes ahead of the server', async () => {
    await expectRefused(JSON.stringify(article({ publishedAt: '9999-12-31T23:59:59Z' })), 400, /^publishedAt must not be more than 5 minutes ahead/);
    const anHourAhead = new Date(Date.now() + 3_600_000).toISOString();
    await expectRefused(JSON.stringify(article({ publishedAt: anHourAhead })), 400, /^publishedAt must not be more than 5 minutes ahead/);
  });

  test('year 0000 is refused: publishedAt starts in 1990', async () => {
    await expectRefused(JSON.stringify(article({ publishedAt: '0000-01-01T00:00:00Z' })), 400, /^publishedAt must not be before 1990-01-01/);
  });

  test('modifiedAt is held to the same calendar and clock', async () => {
    await expectRefused(JSON.stringify(article({ modifiedAt: '2026-02-30T00:00:00Z' })), 400, /^modifiedAt is not a real time/);
    await expectRefused(JSON.stringify(article({ modifiedAt: '9999-12-31T23:59:59Z' })), 400, /^modifiedAt must not be more than 5 minutes ahead/);
  });

  test('a time just now, with a zone, is taken and stored in UTC', async () => {
    const id = newId();
    const justNow = new Date(Date.now() - 60_000);
    const local = new Date(justNow.getTime() + 2 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+02:00');
    const res = await put(id, JSON.stringify(article({ publishedAt: local })));
    assert.equal(res.status, 201, await res.text());
    const { article: stored } = await answerFor(id);
    assert.equal(stored?.publishedAt, new Date(Math.floor(justNow.getTime() / 1000) * 1000).toISOString());
  });
});

describe('ingest: text', () => {
  test('C1 control characters (U+0085, U+009B) in a title are 400 naming title', async () => {
    for (const c of ['\u0085', '\u009b']) {
      await expectRefused(JSON.stringify(article({ title: `Harbour${c}reopens` })), 400, /^title contains a control character\.$/);
    }
  });

  test('a C1 control character written as a \\u escape is refused too', async () => {
    const text = JSON.stringify(article({ title: 'Harbour reopens' })).replace('Harbour reopens', 'Harbour\\u009b31mreopens');
    await expectRefused(text, 400, /^title contains a control character\.$/);
  });

  test('invalid UTF-8 bytes in a title are 400 "not valid UTF-8", never replacement characters', async () => {
    const [head, tail] = JSON.stringify(article({ title: 'Harbour@reopens' })).split('@') as [string, string];
    for (const bad of [[0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82]]) {
      const body = Buffer.concat([Buffer.from(head), Buffer.from(bad), Buffer.from(tail)]);
      await expectRefused(body, 400, /^The body is not valid UTF-8\.$/);
    }
  });

  test('a key given twice is 400 naming it, at the top or deep in the body', async () => {
    const top = JSON.stringify(article()).replace(/^\{/, '{"title":"What a gateway checking the first key would see",');
    await expectRefused(top, 400, /^title is given twice in the body/);
    const escaped = JSON.stringify(article()).replace(/^\{/, '{"\\u0074itle":"The same key, escaped",');
    await expectRefused(escaped, 400, /^title is given twice in the body/);
    const deep = JSON.stringify(article()).replace('"type":"paragraph"', '"type":"paragraph","text":"first","type":"quote"');
    await expectRefused(deep, 400, /^body\[0\]\.type is given twice in the body/);
  });

  test('malformed JSON keeps its message; another charset is 415; the byte limit is 413', async () => {
    await expectRefused('{"section": "world",', 400, /^The body is not valid JSON\.$/);
    await expectRefused('"just a string"', 400, /^The body is not valid JSON\.$/);
    await expectRefused(JSON.stringify(article()), 415, /application\/json/, 'application/json; charset=utf-16');
    await expectRefused(JSON.stringify(article({ lead: 'x'.repeat(600 * 1024) })), 413, /too large/);
    const taken = await put(newId(), JSON.stringify(article()), 'application/json; charset=UTF-8');
    assert.equal(taken.status, 201, 'charset=UTF-8 is the default said aloud');
  });
});
