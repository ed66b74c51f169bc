// Property-based tests (fast-check) of everything that reads an address: the page path check,
// the route table, and the API's parameters, in process and over a real socket. Arbitrary
// paths, percent-encodings, unicode and control characters never throw out of a handler and
// always map to a 200/301/400/404 page or a JSON answer; never a 5xx, never a hang.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import querystring from 'node:querystring';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { maxSectionPageSize } from '../src/content';
import { resolveRoute } from '../src/routes';
import { articleIdPattern, findSection, sectionSlugPattern, sections } from '../src/sections';
import { createStore } from '../src/store';
import { storeData } from '../src/store/page-data';
import { KioskError } from './errors';
import { pagePath, withoutTrailingSlash } from './pages';
import { assertSafeAnswer, rawRequest, seedTempStore, serveTestApp, type TestServer } from '../test/server';

let server: TestServer;
let dir: string;
let articleIds: string[];
const unknownId = '209912312359000000';

before(async () => {
  ({ dir } = await seedTempStore(100, 5));
  server = await serveTestApp(`${dir}/kiosk.sqlite`);
  articleIds = (await server.content.latest(5)).map((h) => h.id);
});

after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF');
/** Any %XX, most of them not valid UTF-8 on their own. */
const percentByte = fc.tuple(hexDigit, hexDigit).map(([a, b]) => `%${a}${b}`);
/** Pieces that mean something to a router, a file server or a decoder. */
const pathToken = fc.constantFrom(
  ...sections.slice(0, 3).map((s) => s.slug),
  'weather',
  'Sport',
  'api',
  'assets',
  'media',
  'preview',
  'healthz',
  'favicon.svg',
  unknownId,
  '1',
  '..',
  '.',
  '',
  '%2e%2e',
  '%2E',
  '%2F',
  '%5C',
  '\\',
  '%00',
  '%0d%0a',
  '%',
  '%Z',
  '%E0%A4',
  '%C3%A9',
  '%ED%A0%80',
  '%F0%9F%92%A9',
  '~',
  ';',
  ':',
  '@',
  '!',
  '$',
  "'",
  '(',
  ')',
  '*',
  '+',
  ',',
  '=',
  '&',
  '%20',
  '%3F',
  '%23',
);
/** Arbitrary code units: unicode, lone surrogates, C0 and C1 controls. */
const anyText = fc.string({ unit: 'binary', maxLength: 8 });

function segmentOf(known: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(
      fc.oneof({ weight: 3, arbitrary: pathToken }, { weight: 1, arbitrary: percentByte }, { weight: 1, arbitrary: anyText }, { weight: 2, arbitrary: known }),
      { maxLength: 3 },
    )
    .map((parts) => parts.join(''));
}

/**
 * How the path goes on the wire. `raw`: as UTF-8 bytes, with only space, CR, LF, ? and # escaped
 * (they would end the request target), so Node's parser sees raw unicode and controls.
 * `escaped`: everything outside printable ASCII percent-encoded, so Kiosk's own checks see it.
 */
function onTheWire(path: string, raw: boolean): string {
  let out = '';
  for (const char of path) {
    const code = char.codePointAt(0)!;
    const printable = code > 0x20 && code < 0x7f && char !== '?' && char !== '#';
    if (printable || (raw && code > 0x7f) || (raw && code < 0x20 && code !== 0x0d && code !== 0x0a)) out += char;
    else out += [...Buffer.from(char)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
  return out;
}

function request(method: string, target: string): Buffer {
  const tail = ` HTTP/1.1\r\nHost: kiosk.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(`${method} `), Buffer.from(target, 'utf8'), Buffer.from(tail)]);
}

const pagePathArbitrary = fc
  .tuple(fc.array(segmentOf(fc.constant('')), { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([segments, trailingSlash]) => `/${segments.join('/')}${trailingSlash ? '/' : ''}`);

describe('page addresses, in process', () => {
  test('pagePath accepts a path or throws a 400 KioskError, for any string at all', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), pagePathArbitrary, fc.string({ unit: 'grapheme', maxLength: 1500 })), (url) => {
        let path: string;
        try {
          path = pagePath(url);
        } catch (error) {
          assert.ok(error instanceof KioskError, `a KioskError, not ${String(error)}`);
          assert.equal(error.status, 400);
          return;
        }
        assert.ok(path.startsWith('/') && path.length <= 1024 && !path.includes('?'));
      }),
      { numRuns: 2_000 },
    );
  });

  test('the trailing-slash redirect always stays on the site', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          pagePathArbitrary,
          fc.string({ unit: 'binary', maxLength: 12 }).map((s) => `/${s}/`),
        ),
        (path) => {
          const location = withoutTrailingSlash(path);
          if (location !== null) assert.match(location, /^\/(?![/\\])/);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  test('resolveRoute maps every checked path to a 200 or 404 page or a 301 to an article, and never throws', async () => {
    const known = fc.constantFrom(...articleIds, ...articleIds.map((id) => `%3${id[0]}${id.slice(1)}`));
    const paths = fc.tuple(fc.array(segmentOf(known), { minLength: 1, maxLength: 4 })).map(([segments]) => `/${segments.join('/')}`);
    await fc.assert(
      fc.asyncProperty(paths, async (url) => {
        let path: string;
        try {
          path = pagePath(url);
        } catch {
          return;
        }
        const result = await resolveRoute(path, storeData(createStore(server.content)));
        if (result.kind === 'redirect') {
          assert.equal(result.status, 301);
          assert.match(result.location, /^\/[a-z-]+\/\d{18}$/);
        } else {
          assert.ok(result.status === 200 || result.status === 404, `status ${result.status}`);
        }
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('addresses over a real socket', () => {
  test('GET and HEAD on any path: a 200, 301, 400 or 404 (403 under /assets), never reflected', async () => {
    await fc.assert(
      fc.asyncProperty(pagePathArbitrary, fc.boolean(), fc.constantFrom('GET', 'HEAD'), async (path, raw, method) => {
        const target = `${onTheWire(path, raw)}?q=kioskprobe%3Cb%3E`;
        const res = await rawRequest(server.baseUrl, request(method, target));
        assertSafeAnswer(res, `${method} ${target}`);
        const allowed = target.startsWith('/assets/') ? [200, 301, 400, 403, 404] : [200, 301, 400, 404];
        assert.ok(allowed.includes(res.status), `${method} ${target}: ${res.status}`);
        if (res.status === 301) assert.match(res.headers.location ?? '', /^\/(?![/\\])/, `${target}: stays on the site`);
        assert.ok(!res.body.includes('kioskprobe'), `${target}: the query string is not reflected`);
      }),
      { numRuns: 300 },
    );
  });

  test('other methods on any path: 405 with Allow, or 400 for an address even the router cannot read', async () => {
    const methods = fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL');
    const paths = fc.oneof(
      pagePathArbitrary,
      pagePathArbitrary.map((p) => `/api${p}`),
    );
    await fc.assert(
      fc.asyncProperty(methods, paths, fc.boolean(), async (method, path, raw) => {
        const target = onTheWire(path, raw);
        const res = await rawRequest(server.baseUrl, request(method, target));
        assertSafeAnswer(res, `${method} ${target}`);
        assert.ok([400, 404, 405].includes(res.status), `${method} ${target}: ${res.status}`);
        if (res.status === 405) assert.ok(res.headers.allow, `${method} ${target}: a 405 says what is allowed`);
        if (res.status === 404) assert.match(target, /^\/api\/ingest(\/|$)/, `${method} ${target}: only ingestion (off here) is a 404`);
      }),
      { numRuns: 300 },
    );
  });

  const queryValue = fc.oneof(
    fc.integer({ min: -5, max: 120 }).map(String),
    fc.constantFrom('', '007', '1e1', '0x10', '5.0', '%205', '%ZZ', '%35', '+5', unknownId, '99999999999999999999', 'abc'),
    fc.string({ unit: 'binary', maxLength: 6 }).map((s) => onTheWire(s, false).replace(/[&=]/g, '')),
  );
  const query = fc
    .array(fc.tuple(fc.constantFrom('limit', 'cursor', 'other', 'limit[]'), queryValue), { maxLength: 3 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

  /** What the API must answer, from its documented rules (docs/architecture.md, "JSON API"). */
  function expectedStatus(kind: 'articles' | 'sections' | 'latest', segment: string, rawQuery: string): number | 'found-or-not' {
    const params = querystring.parse(rawQuery);
    const badQuery = (name: string, valid: (v: string) => boolean) => {
      const value = params[name];
      return value !== undefined && (typeof value !== 'string' || !valid(value));
    };
    const badLimit = badQuery('limit', (v) => /^\d{1,3}$/.test(v) && Number(v) >= 1 && Number(v) <= maxSectionPageSize);
    if (kind === 'latest') return badLimit ? 400 : 200;
    if (segment === '') return 404;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 400;
    }
    if (kind === 'articles') return articleIdPattern.test(decoded) ? 'found-or-not' : 400;
    if (!sectionSlugPattern.test(decoded)) return 400;
    if (!findSection(decoded)) return 404;
    return badLimit || badQuery('cursor', (v) => articleIdPattern.test(v)) ? 400 : 200;
  }

  test('the API answers any id, slug, cursor and limit as its rules say, always as JSON', async () => {
    const apiSegment = segmentOf(fc.constantFrom(...articleIds, 'news', 'sport', 'weather', 'NEWS', 'a-b')).map((s) =>
      onTheWire(s, false).replaceAll('/', '%2F'),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('articles', 'sections', 'latest'), apiSegment, query, async (kind, segment, rawQuery) => {
        const path = kind === 'latest' ? '/api/latest' : `/api/${kind}/${segment}`;
        const target = rawQuery ? `${path}?${rawQuery}` : path;
        const res = await rawRequest(server.baseUrl, request('GET', target));
        assertSafeAnswer(res, `GET ${target}`);
        assert.match(res.headers['content-type'] ?? '', /^application\/json/, `${target}: JSON`);
        const expected = expectedStatus(kind, segment, rawQuery);
        if (expected === 'found-or-not') assert.ok(res.status === 200 || res.status === 404, `${target}: ${res.status}`);
        else assert.equal(res.status, expected, `${target}: ${res.body}`);
      }),
      { numRuns: 400 },
    );
  });
});
