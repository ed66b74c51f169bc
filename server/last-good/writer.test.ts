// A worker's last good copies: written off the request's path, indexed in the same tick as the
// rename, never put in place after a change the page was rendered before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { everythingChanged, type ArticleChange, type ContentChange } from '../content/changes';
import { waitFor } from '../../test/wait';
import { copyFileOf } from './copy-path';
import type { ChangeSeen, CopyWritten } from './messages';
import { LastGoodWriter, type LastGoodSettings, type RenderedPage } from './writer';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-last-good-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const nonce = 'n0nce+/=';
function page(pagePath: string, overrides: Partial<RenderedPage> = {}): RenderedPage {
  return {
    path: pagePath,
    cache: 'article',
    canonicalPath: pagePath,
    body: Buffer.from(`<h1>Headline of ${pagePath}</h1><script defer src="/assets/a.js" nonce="${nonce}"></script>`),
    nonce,
    headers: { 'Cache-Tag': 'a:1,a:2' },
    ...overrides,
  };
}

/** A budget that allows every write: the budget's own rule is budget.test.ts's. */
const unbounded = { allows: () => true, timed: <T>(write: () => T): T => write() };

function writerWith(options: { refreshMs?: number; primary?: boolean; budget?: LastGoodSettings['budget']; now?: () => number } = {}) {
  const sent: (CopyWritten | ChangeSeen)[] = [];
  const onDiskWhenSent: boolean[] = [];
  const send = (message: CopyWritten | ChangeSeen) => {
    sent.push(message);
    if (message.kiosk === 'last-good:copied') onDiskWhenSent.push(fs.existsSync(copyFileOf(dir, message.path)!));
  };
  // The content cache's mark, as the cache moves it: with every change before it tells the
  // writer (seen), and with every list it hands a render as it was (handedOut).
  let mark = 0;
  const writer = new LastGoodWriter(
    { dir, refreshMs: options.refreshMs ?? 60_000, maxRemembered: 100, budget: options.budget ?? unbounded },
    () => (options.primary === false ? null : send),
    () => mark,
    options.now,
  );
  const seen = (change: ContentChange) => {
    mark += 1;
    writer.changed(change);
  };
  const handedOut = () => (mark += 1);
  return { writer, sent, onDiskWhenSent, seen, handedOut };
}

const copied = (sent: (CopyWritten | ChangeSeen)[]) => sent.filter((m): m is CopyWritten => m.kiosk === 'last-good:copied');
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

test('a rendered page is written without its nonce where Nginx looks, then indexed with its tags', async () => {
  const { writer, sent, onDiskWhenSent } = writerWith();
  writer.afterAnswer(page('/world/101'), writer.generation);
  const file = copyFileOf(dir, '/world/101')!;
  assert.equal(fs.existsSync(file), false, 'not on the request path: written after the answer');
  await waitFor('the copy indexed', () => copied(sent).length === 1);
  assert.equal(fs.readFileSync(file, 'utf8'), '<h1>Headline of /world/101</h1><script defer src="/assets/a.js"></script>');
  assert.equal(fs.statSync(file).mode & 0o777, 0o644);
  assert.deepEqual(copied(sent)[0]!.tags, ['a:1', 'a:2']);
  assert.deepEqual(onDiskWhenSent, [true], 'indexed right after the rename');
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['index.html'], 'no temporary file left');
});

test('a change seen after the render began: the copy is dropped, and the change is sent as purge items', async () => {
  const { writer, sent, seen } = writerWith();
  const generation = writer.generation;
  writer.afterAnswer(page('/world/102'), generation);
  const change: ArticleChange = { kind: 'article', id: '102', was: { section: 'world', tags: [], status: 'published' }, now: null };
  seen(change);
  await settle();
  assert.equal(fs.existsSync(copyFileOf(dir, '/world/102')!), false);
  assert.deepEqual(copied(sent), []);
  assert.deepEqual(sent, [{ kiosk: 'last-good:changed', items: ['#a:102', '#front', '#l:all', '#s:world'] }]);
  seen(everythingChanged);
  assert.deepEqual(sent.at(-1), { kiosk: 'last-good:changed', items: ['/*'] });
  assert.equal(fs.existsSync(path.dirname(copyFileOf(dir, '/world/102')!)), false, 'nothing written at all');
  // A change the page does not show, between the render and the write: dropped, and due again.
  const unrelated: ArticleChange = { kind: 'article', id: '77', was: null, now: { section: 'sport', tags: [], status: 'published' } };
  writer.afterAnswer(page('/world/102'), writer.generation);
  seen(unrelated);
  await settle();
  assert.deepEqual(copied(sent), []);
  writer.afterAnswer(page('/world/102'), writer.generation);
  await waitFor('written on the next render', () => copied(sent).length === 1);
});

test('a render while the content cache handed out a list as it was: not copied, nothing to purge, due again on its next render', async () => {
  const { writer, sent, handedOut } = writerWith();
  const generation = writer.generation;
  handedOut();
  writer.afterAnswer(page('/world/109'), generation);
  await settle();
  assert.equal(fs.existsSync(copyFileOf(dir, '/world/109')!), false);
  assert.deepEqual(sent, [], 'no copy and no purge');
  writer.afterAnswer(page('/world/109'), writer.generation);
  await waitFor('written on the next render', () => copied(sent).length === 1);
});

test('one write per path per refresh interval, and again once a change has removed its copy', async () => {
  const { writer, sent, seen } = writerWith();
  writer.afterAnswer(page('/world/103'), writer.generation);
  writer.afterAnswer(page('/world/103'), writer.generation);
  await settle();
  assert.equal(copied(sent).length, 1);
  writer.changed({ kind: 'article', id: '9', was: null, now: { section: 'world', tags: [], status: 'draft' } });
  assert.equal(sent.length, 1, 'a draft that stays a draft touches nothing readers see: nothing to purge');
  const elsewhere: ArticleChange = { kind: 'article', id: '99', was: null, now: { section: 'sport', tags: [], status: 'published' } };
  seen(elsewhere);
  writer.afterAnswer(page('/world/103'), writer.generation);
  await settle();
  assert.equal(copied(sent).length, 1, 'a change to a story the page does not show leaves its copy, so no write');
  const shown: ArticleChange = {
    kind: 'article',
    id: '2',
    was: { section: 'world', tags: [], status: 'published' },
    now: { section: 'world', tags: [], status: 'published' },
  };
  seen(shown);
  writer.afterAnswer(page('/world/103'), writer.generation);
  await waitFor('written again after a change to a story it shows', () => copied(sent).length === 2);
  seen(everythingChanged);
  writer.afterAnswer(page('/world/103'), writer.generation);
  await waitFor('written again after "everything changed"', () => copied(sent).length === 3);
});

test('no copy of what Nginx must never answer from one, nor without a primary to index it', async () => {
  const { writer, sent } = writerWith({ refreshMs: 0 });
  for (const bad of [
    page('/world/104', { cache: 'notFound', canonicalPath: null }),
    page('/world/105', { canonicalPath: '/business/105' }),
    page('/World/106', { canonicalPath: '/World/106' }),
    page('/world/107', { headers: {} }),
  ]) {
    writer.afterAnswer(bad, writer.generation);
  }
  const orphan = writerWith({ primary: false });
  orphan.writer.afterAnswer(page('/world/108'), orphan.writer.generation);
  await settle();
  assert.deepEqual(sent, []);
  for (const id of ['104', '105', '107', '108']) assert.equal(fs.existsSync(copyFileOf(dir, `/world/${id}`)!), false, id);
});

test('within the time budget: a page over it is written on a later render; the writes of one tick are checked as each begins', async () => {
  // Two writes a "second", counted by the stub as the real budget counts time.
  let spent = 0;
  const budget = {
    allows: () => spent < 2,
    timed: <T>(write: () => T): T => {
      spent += 1;
      return write();
    },
  };
  const { writer, sent } = writerWith({ budget });
  // All three pass the check at render time (nothing spent yet); the third finds the budget spent when its write begins.
  for (const id of ['201', '202', '203']) writer.afterAnswer(page(`/world/${id}`), writer.generation);
  await settle();
  assert.deepEqual(
    copied(sent).map((m) => m.path),
    ['/world/201', '/world/202'],
  );
  writer.afterAnswer(page('/world/203'), writer.generation);
  await settle();
  assert.equal(copied(sent).length, 2, 'still over the budget: not written, and due again');
  spent = 0;
  writer.afterAnswer(page('/world/203'), writer.generation);
  await waitFor('written once the budget allows', () => copied(sent).length === 3);
});
