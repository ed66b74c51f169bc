// The CMS's ingestion and editors' preview, over a real socket against a real SQLite file.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from './config';
import { previewBanner, previewPath } from './preview';
import { seedTempStore, serveTestApp, textOf, type TestServer } from '../test/server';

const token = 'ingest-token-for-tests-0123456789abcdef';
const secret = 'preview-secret-for-tests-0123456789abcdef';
const env = { INGEST_TOKEN: token, PREVIEW_SECRET: secret };

let dir: string;
let dbPath: string;
let server: TestServer;
let serial = 900_000;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(200, 5));
  server = await serveTestApp(dbPath, undefined, env);
});

after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A new id each time, in the past minute-wise so it sorts among the seeded ones. */
function newId(): string {
  serial += 1;
  return `202611220800${String(serial).padStart(6, '0')}`;
}

/**
 * The CMS's clock: every article() is a later version than the one before, as a CMS stamps each
 * save. It starts a day back, so it never runs ahead of the server's.
 */
let modified = Date.now() - 86_400_000;
function nextModifiedAt(): string {
  modified += 1_000;
  return new Date(modified).toISOString();
}

function article(overrides: Record<string, unknown> = {}) {
  return {
    modifiedAt: nextModifiedAt(),
    section: 'world',
    status: 'published',
    title: 'Harbour reopens after the storm',
    lead: 'Ferries run again from the morning tide.',
    author: 'Kiosk Desk',
    image: { src: '/media/harbour.svg', alt: 'The harbour at dawn', caption: 'Boats wait', credit: 'Kiosk', width: 1200, height: 675 },
    publishedAt: '2026-11-22T08:00:00Z',
    body: [
      { type: 'paragraph', text: 'The harbour reopened at six.' },
      { type: 'quote', text: 'We are back.', attribution: 'A ferry captain' },
    ],
    ...overrides,
  };
}

function put(id: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function del(id: string, modifiedAt: string | null, headers: Record<string, string> = {}) {
  const query = modifiedAt === null ? '' : `?modifiedAt=${encodeURIComponent(modifiedAt)}`;
  return fetch(`${server.baseUrl}/api/ingest/articles/${id}${query}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}`, ...headers } });
}

function get(path: string) {
  return fetch(server.baseUrl + path, { redirect: 'manual' });
}

async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe('ingestion', () => {
  test('no token, a wrong token or a malformed header is 401 before the body is read', async () => {
    const id = newId();
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`, `Bearer ${token}x`, 'Bearer']) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (authorization) headers.Authorization = authorization;
      const res = await fetch(`${server.baseUrl}/api/ingest/articles/${id}`, { method: 'PUT', headers, body: JSON.stringify(article()) });
      assert.equal(res.status, 401, String(authorization));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await errorOf(res)).code, 'unauthorized');
    }
    assert.equal((await get(`/api/articles/${id}`)).status, 404, 'nothing was written');
  });

  test('malformed JSON is 400 with a message; too large is 413; unknown fields and bad values are 400 naming the field', async () => {
    const id = newId();
    const malformed = await put(id, '{"section": "world",');
    assert.equal(malformed.status, 400);
    assert.match((await errorOf(malformed)).message, /not valid JSON/);

    const huge = await put(id, article({ lead: 'x'.repeat(600 * 1024) }));
    assert.equal(huge.status, 413);
    assert.equal((await errorOf(huge)).code, 'payload_too_large');

    const cases: [Record<string, unknown>, RegExp][] = [
      [article({ comments: ['x'] }), /unknown field "comments"/],
      [article({ tags: ['Not A Tag'] }), /tags\[0\] must be a tag/],
      [article({ tags: 'climate' }), /tags must be an array/],
      [article({ tags: ['climate', 'climate'] }), /tags must not name a tag twice/],
      [article({ tags: Array.from({ length: 9 }, (_, i) => `tag-${i}`) }), /tags must be an array of at most 8 tags/],
      [article({ section: 'weather' }), /section/],
      [article({ status: 'live' }), /status/],
      [article({ title: 'x'.repeat(201) }), /title must be at most 200/],
      [article({ title: '' }), /title must not be empty/],
      [article({ title: 'bell\u0007' }), /control character/],
      [article({ body: [] }), /body must have 1 to 200 blocks/],
      [article({ body: [{ type: 'html', text: '<b>x</b>' }] }), /body\[0\]\.type/],
      [article({ body: [{ type: 'paragraph', text: 'x', html: '<b>' }] }), /body\[0\] has an unknown field "html"/],
      [article({ image: { src: 'javascript:alert(1)', alt: '', width: 1, height: 1 } }), /image\.src/],
      [article({ publishedAt: 'yesterday' }), /publishedAt/],
    ];
    for (const [body, message] of cases) {
      const res = await put(id, body);
      assert.equal(res.status, 400, String(message));
      assert.match((await errorOf(res)).message, message);
    }
    const withoutSection: Record<string, unknown> = article();
    delete withoutSection.section;
    const missing = await put(id, withoutSection);
    assert.equal(missing.status, 400);
    assert.match((await errorOf(missing)).message, /section is required/);

    const text = await put(id, JSON.stringify(article()), { 'Content-Type': 'text/plain' });
    assert.equal(text.status, 415);
    assert.equal((await put('12345', article())).status, 400);
    assert.equal((await get(`/api/articles/${id}`)).status, 404, 'no refused request wrote anything');
  });

  test('a published article shows on the next request; its update too; unpublishing takes it off', async () => {
    const id = newId();
    const created = await put(id, article({ title: 'Bridge opens to traffic' }));
    assert.equal(created.status, 201);
    const receipt = (await created.json()) as { outcome: string; path: string; updatedAt: string };
    assert.equal(receipt.outcome, 'created');
    assert.equal(receipt.path, `/world/${id}`);

    const page = await get(`/world/${id}`);
    assert.equal(page.status, 200);
    assert.match(textOf(await page.text()), /Bridge opens to traffic/);
    const latest = (await (await get('/api/latest')).json()) as { items: { id: string }[] };
    assert.ok(
      latest.items.some((item) => item.id === id),
      'the cached latest list moved on',
    );

    const updated = await put(id, article({ title: 'Bridge opens to traffic, two lanes only' }));
    assert.equal(updated.status, 200);
    const second = (await updated.json()) as { outcome: string; updatedAt: string };
    assert.equal(second.outcome, 'updated');
    assert.ok(second.updatedAt >= receipt.updatedAt);
    assert.match(textOf(await (await get(`/world/${id}`)).text()), /two lanes only/);
    const api = (await (await get(`/api/articles/${id}`)).json()) as { article: { title: string; updatedAt: string } };
    assert.equal(api.article.title, 'Bridge opens to traffic, two lanes only');
    assert.equal(api.article.updatedAt, second.updatedAt);

    const removed = await del(id, nextModifiedAt());
    assert.equal(removed.status, 200);
    assert.equal((await get(`/world/${id}`)).status, 404);
    assert.equal((await get(`/api/articles/${id}`)).status, 404);
    const unknown = await del(newId(), nextModifiedAt());
    assert.equal(unknown.status, 404);
  });

  test('regression: an https image from the CMS is the og:image as it is, not appended to the site URL', async () => {
    const id = newId();
    const src = 'https://images.example/harbour.jpg';
    assert.equal((await put(id, article({ image: { src, alt: 'Harbour', width: 1200, height: 675 } }))).status, 201);
    const html = await (await get(`/world/${id}`)).text();
    assert.ok(html.includes(`<meta property="og:image" content="${src}">`), 'og:image is the image URL itself');
  });

  test('a draft is never in the API or on any public page', async () => {
    const id = newId();
    const marker = 'Embargoed budget figures leak';
    assert.equal((await put(id, article({ status: 'draft', title: marker, section: 'business' }))).status, 201);
    assert.equal((await get(`/api/articles/${id}`)).status, 404);
    assert.equal((await get(`/business/${id}`)).status, 404);
    for (const path of ['/', '/business', '/api/front', '/api/latest?limit=50', '/api/sections/business?limit=50']) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.ok(!(await res.text()).includes(marker), `${path} shows the draft`);
    }
  });

  test('with ingestion off every address under /api/ingest is 404', async () => {
    const off = await serveTestApp(dbPath);
    try {
      const res = await fetch(`${off.baseUrl}/api/ingest/articles/${newId()}`, { method: 'PUT', headers: { Authorization: `Bearer ${token}` }, body: '{}' });
      assert.equal(res.status, 404);
    } finally {
      await off.close();
    }
  });
});

describe('ordered pushes', () => {
  async function titleOf(id: string): Promise<string> {
    return ((await (await get(`/api/articles/${id}`)).json()) as { article: { title: string } }).article.title;
  }

  test('a late replay of an older version is refused with 409 naming what is stored, and changes nothing', async () => {
    const id = newId();
    const v1 = article({ title: 'Minister resigns (wrong name)' });
    const v2 = article({ title: 'Minister resigns' });
    assert.equal((await put(id, v1)).status, 201);
    const corrected = await put(id, v2);
    assert.equal(corrected.status, 200);

    const replay = await put(id, v1);
    assert.equal(await titleOf(id), 'Minister resigns', 'the correction stands');
    assert.match(textOf(await (await get(`/world/${id}`)).text()), /Minister resigns(?! \(wrong)/);
    assert.equal(replay.status, 409);
    const error = await errorOf(replay);
    assert.equal(error.code, 'conflict');
    assert.ok(error.message.includes(v2.modifiedAt) && error.message.includes(v1.modifiedAt), error.message);
    assert.equal(corrected.headers.get('etag'), `"${v2.modifiedAt}"`);
    assert.equal(replay.headers.get('etag'), `"${v2.modifiedAt}"`, 'the answer says which version is stored');
  });

  test('the same push twice is answered 200 "unchanged" with the same ETag; other content at the same time is 409', async () => {
    const id = newId();
    const v1 = article({ title: 'Storm closes the coast road' });
    const first = await put(id, v1);
    assert.equal(first.status, 201);
    const receipt = (await first.json()) as { updatedAt: string };
    const again = await put(id, v1);
    assert.equal(again.status, 200);
    const repeated = (await again.json()) as { outcome: string; updatedAt: string };
    assert.equal(repeated.outcome, 'unchanged');
    assert.equal(repeated.updatedAt, receipt.updatedAt, 'nothing was written again');
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));

    const sameTime = await put(id, { ...v1, title: 'Storm closes the coast road and the bridge' });
    assert.equal(sameTime.status, 409);
    assert.match((await errorOf(sameTime)).message, /same time/);
    assert.equal(await titleOf(id), 'Storm closes the coast road');
  });

  test('modifiedAt is required, as an ISO 8601 time with a zone', async () => {
    const id = newId();
    const { modifiedAt: _dropped, ...without } = article(); // eslint-disable-line @typescript-eslint/no-unused-vars -- left out on purpose
    const missing = await put(id, without);
    assert.equal(missing.status, 400);
    assert.match((await errorOf(missing)).message, /modifiedAt is required/);
    const unzoned = await put(id, article({ modifiedAt: '2026-11-22T08:00:00' }));
    assert.equal(unzoned.status, 400);
    assert.match((await errorOf(unzoned)).message, /modifiedAt/);
    assert.equal((await get(`/api/articles/${id}`)).status, 404);
  });

  test('If-Match: another version than the stored one is 412 and changes nothing; the stored ETag or "*" goes through', async () => {
    const id = newId();
    const created = await put(id, article({ title: 'Council votes on the tram' }));
    const etag = created.headers.get('etag')!;
    const stale = await put(id, article({ title: 'Council approves the tram' }), { 'If-Match': '"2020-01-01T00:00:00.000Z"' });
    assert.equal(stale.status, 412);
    assert.equal((await errorOf(stale)).code, 'precondition_failed');
    assert.equal(stale.headers.get('etag'), etag, 'the answer names the stored version');
    assert.equal(await titleOf(id), 'Council votes on the tram');
    assert.equal((await put(id, article({ title: 'x' }), { 'If-Match': `W/${etag}` })).status, 412, 'If-Match compares strongly');
    assert.equal((await put(id, article({ title: 'x' }), { 'If-Match': 'not-an-etag' })).status, 400);

    const matched = await put(id, article({ title: 'Council approves the tram' }), { 'If-Match': `"elsewhere", ${etag}` });
    assert.equal(matched.status, 200);
    assert.equal(await titleOf(id), 'Council approves the tram');
    const any = await put(id, article({ title: 'Council approves the tram, in part' }), { 'If-Match': '*' });
    assert.equal(any.status, 200);
    assert.equal((await del(id, nextModifiedAt(), { 'If-Match': etag })).status, 412, 'the ETag of a replaced version no longer matches');
    assert.equal((await get(`/api/articles/${id}`)).status, 200);
    assert.equal((await put(newId(), article(), { 'If-Match': etag })).status, 412, 'no stored version matches any ETag');
  });

  test('DELETE names its modifiedAt: older than the stored version is 409 and the story stays; again is "unchanged"', async () => {
    const id = newId();
    const before = nextModifiedAt();
    assert.equal((await put(id, article({ title: 'Ferry strike called off' }))).status, 201);
    const late = await del(id, before);
    assert.equal((await get(`/world/${id}`)).status, 200, 'still published');
    assert.equal(late.status, 409);
    assert.equal((await errorOf(late)).code, 'conflict');

    const missing = await del(id, null);
    assert.equal(missing.status, 400);
    assert.match((await errorOf(missing)).message, /modifiedAt is required/);
    assert.equal((await del(id, 'yesterday')).status, 400);

    const at = nextModifiedAt();
    const removed = await del(id, at);
    assert.equal(removed.status, 200);
    assert.equal(removed.headers.get('etag'), `"${at}"`);
    assert.equal(((await removed.json()) as { outcome: string }).outcome, 'unpublished');
    assert.equal((await get(`/world/${id}`)).status, 404);
    const again = await del(id, at);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { outcome: string }).outcome, 'unchanged');
    // The version unpublished is the one a late replay of the published story would have to beat.
    assert.equal((await put(id, article({ title: 'Ferry strike called off', modifiedAt: before }))).status, 409);
    assert.equal((await get(`/world/${id}`)).status, 404);
  });
});

describe('preview', () => {
  const draftTitle = 'Draft: council weighs a new tram line';
  let draftId: string;

  before(async () => {
    draftId = newId();
    assert.equal((await put(draftId, article({ status: 'draft', title: draftTitle, section: 'domestic' }))).status, 201);
  });

  test('a valid link shows the draft, server-rendered, with the banner, never cached or indexed', async () => {
    const res = await get(previewPath(draftId, 3600, secret));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-render-mode'), 'ssr');
    assert.equal(res.headers.get('cache-control'), 'private, no-store');
    assert.match(res.headers.get('x-robots-tag') ?? '', /noindex/);
    const html = await res.text();
    assert.match(textOf(html), new RegExp(`${previewBanner}.*${draftTitle}`));
    assert.match(html, /<meta name="robots" content="noindex">/);
    assert.doesNotMatch(html, /rel="canonical"|<script/, 'no canonical URL, no state, no client bundle');
    // No script will ever fill in what the DOM budget leaves to the browser: a preview has it all.
    assert.match(html, /teaser-grid--more/);
    assert.match(html, /class="related"/);
  });

  test('missing, tampered, expired or other-article signatures get 401/403 pages with no draft data', async () => {
    const good = previewPath(draftId, 3600, secret);
    const params = new URL(good, 'http://x').searchParams;
    const [sig, expires, issued] = [params.get('sig')!, params.get('expires')!, params.get('issued')!];
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const otherArticle = previewPath(newId(), 3600, secret).split('?')[1];
    const cases: [string, number][] = [
      [`/preview/${draftId}`, 401],
      [`/preview/${draftId}?issued=${issued}&expires=${expires}&sig=${flipped}`, 403],
      [`/preview/${draftId}?issued=${issued}&expires=${Number(expires) + 60}&sig=${sig}`, 403],
      [`/preview/${draftId}?issued=${Number(issued) - 1000}&expires=${expires}&sig=${sig}`, 403],
      [`/preview/${draftId}?issued=${issued}&expires=${expires}`, 403],
      [`/preview/${draftId}?${otherArticle}`, 403],
      [previewPath(draftId, 60, secret, Date.now() - 3_600_000), 403],
      [previewPath(draftId, 3600, 'another-secret-of-enough-length-0123456789'), 403],
    ];
    for (const [path, status] of cases) {
      const res = await get(path);
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('cache-control'), 'private, no-store', path);
      const everything = JSON.stringify([...res.headers]) + (await res.text());
      assert.ok(!everything.includes(draftTitle) && !everything.includes('tram'), `${path} leaks the draft`);
    }
    const expired = await get(previewPath(draftId, 60, secret, Date.now() - 3_600_000));
    assert.match(textOf(await expired.text()), /expired/);
  });

  /** A link signed as the server signs them, with any issue time and expiry: what a leaked secret could make. */
  function signedLink(id: string, issuedMs: number, expiresS: number): string {
    const sig = createHmac('sha256', secret).update(`kiosk-preview-issued:${id}:${issuedMs}:${expiresS}`).digest('base64url');
    return `/preview/${id}?issued=${issuedMs}&expires=${expiresS}&sig=${sig}`;
  }

  /** A link of the kind issued before links carried their issue time: signed over the id and the expiry only. */
  function linkWithoutIssueTime(id: string, expiresS: number): string {
    const sig = createHmac('sha256', secret).update(`kiosk-preview:${id}:${expiresS}`).digest('base64url');
    return `/preview/${id}?expires=${expiresS}&sig=${sig}`;
  }

  async function assertRefused(path: string, title: string, message: RegExp): Promise<void> {
    const res = await get(path);
    assert.equal(res.status, 403, path);
    assert.equal(res.headers.get('cache-control'), 'private, no-store', path);
    const text = await res.text();
    assert.ok(!(JSON.stringify([...res.headers]) + text).includes(title), `${path} leaks the draft`);
    assert.match(textOf(text), message);
  }

  test('unpublishing takes back every link issued before it; a link issued after works', async () => {
    const id = newId();
    const title = 'Spiked: the mayor steps down';
    assert.equal((await put(id, article({ title, section: 'domestic' }))).status, 201);
    const sent = previewPath(id, 3600, secret);
    assert.equal((await get(sent)).status, 200);

    const removed = await del(id, nextModifiedAt());
    assert.equal(removed.status, 200);
    const { previewsRevokedBefore } = (await removed.json()) as { previewsRevokedBefore: string };
    await assertRefused(sent, title, /taken back/);

    // A link made after the unpublish carries a later issue time.
    while (Date.now() <= Date.parse(previewsRevokedBefore)) await new Promise((resolve) => setImmediate(resolve));
    const fresh = await get(previewPath(id, 3600, secret));
    assert.equal(fresh.status, 200);
    assert.match(textOf(await fresh.text()), new RegExp(title));
  });

  test('a push that takes a published story back to draft takes its links back too; saving a draft does not', async () => {
    const id = newId();
    const title = 'Embargo broken: the budget leaks';
    assert.equal((await put(id, article({ title }))).status, 201);
    const sent = previewPath(id, 3600, secret);
    assert.equal((await put(id, article({ title, status: 'draft' }))).status, 200);
    await assertRefused(sent, title, /taken back/);

    const issued = Date.now();
    while (Date.now() <= issued) await new Promise((resolve) => setImmediate(resolve));
    const later = previewPath(id, 3600, secret);
    assert.equal((await put(id, article({ title, status: 'draft', lead: 'Edited while in draft.' }))).status, 200);
    assert.equal((await get(later)).status, 200, 'a draft saved again revokes nothing');
  });

  test('a correctly signed link living longer than 7 days, or issued ahead of the clock, is refused', async () => {
    const nowS = Math.floor(Date.now() / 1000);
    const day = 86_400;
    await assertRefused(signedLink(draftId, Date.now(), nowS + 365 * day), draftTitle, /7 days/);
    await assertRefused(signedLink(draftId, Date.now() - 8 * day * 1000, nowS + day), draftTitle, /7 days/);
    await assertRefused(signedLink(draftId, Date.now() + 3 * day * 1000, nowS + 4 * day), draftTitle, /not valid/);
    assert.equal((await get(signedLink(draftId, Date.now() - 6 * day * 1000, nowS + day - 60))).status, 200, 'within 7 days of both: served');
  });

  test('a link without an issue time cannot be taken back, so it is refused, however long it lives', async () => {
    const nowS = Math.floor(Date.now() / 1000);
    await assertRefused(linkWithoutIssueTime(draftId, nowS + 3600), draftTitle, /old kind/);
    await assertRefused(linkWithoutIssueTime(draftId, nowS + 10 * 365 * 86_400), draftTitle, /old kind/);
  });

  test('a preview is server-rendered even with the overload limit at 0', async () => {
    const loaded = await serveTestApp(dbPath, undefined, { ...env, SSR_QUEUE_LIMIT: '0' });
    try {
      const page = await fetch(`${loaded.baseUrl}/domestic`);
      assert.equal(page.headers.get('x-render-mode'), 'shell', 'pages get the shell at limit 0');
      const preview = await fetch(loaded.baseUrl + previewPath(draftId, 600, secret));
      assert.equal(preview.status, 200);
      assert.equal(preview.headers.get('x-render-mode'), 'ssr');
      assert.match(textOf(await preview.text()), new RegExp(draftTitle));
    } finally {
      await loaded.close();
    }
  });

  test('with preview off, /preview/ is a 404', async () => {
    const off = await serveTestApp(dbPath);
    try {
      assert.equal((await fetch(off.baseUrl + previewPath(draftId, 600, secret))).status, 404);
    } finally {
      await off.close();
    }
  });
});

test('a feature turned on without its secret, or with a short one, stops start-up; no secret is built in', () => {
  assert.equal(loadConfig({}).ingestToken, null);
  assert.equal(loadConfig({}).previewSecret, null);
  assert.throws(() => loadConfig({ NODE_ENV: 'production', PREVIEW_ENABLED: 'true' }), /PREVIEW_SECRET is not set/);
  assert.throws(() => loadConfig({ NODE_ENV: 'production', INGEST_ENABLED: '1' }), /INGEST_TOKEN is not set/);
  assert.throws(() => loadConfig({ INGEST_TOKEN: 'short' }), ConfigError);
  assert.equal(loadConfig({ PREVIEW_SECRET: secret }).previewSecret, secret);
  assert.equal(loadConfig({ PREVIEW_SECRET: secret, PREVIEW_ENABLED: 'false' }).previewSecret, null);
  assert.throws(() => loadConfig({ PREVIEW_ENABLED: 'maybe' }), ConfigError);
});
