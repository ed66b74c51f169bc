// The ingest profile's rules for times and text, in process: a real calendar time within its
// bounds, no C0 or C1 control characters; the answer profile as loose as it was.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { answerSchemas, calendarTime, ingestSchemasAt, parseWith } from './content-schema';

const now = new Date('2026-11-26T12:00:00.000Z');

// The ingest profile's smaller shapes carry the same fields as the whole article (a headline:
// id, section, title, publishedAt), so these tests need nothing else of an article.
const headline = (overrides: Record<string, unknown> = {}) => ({
  id: '202611220800000001',
  section: 'world',
  title: 'Harbour reopens after the storm',
  publishedAt: '2026-11-22T08:00:00Z',
  ...overrides,
});

/** Parses with the ingest profile's `shape`, its times bounded by `at`; throws the refusal's sentence. */
function ingest<K extends 'headline' | 'block' | 'image'>(shape: K, input: unknown, at = now) {
  return parseWith(ingestSchemasAt(at)[shape], input, 'The article', (message) => new Error(message));
}

const daysIn = (year: number, month: number) =>
  [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
const two = (n: number) => String(n).padStart(2, '0');

describe('calendarTime', () => {
  test('a time whose fields are all real is the instant Date.parse reads; any field out of range is NaN', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 0, max: 13 }),
          day: fc.integer({ min: 0, max: 32 }),
          hour: fc.integer({ min: 0, max: 25 }),
          minute: fc.integer({ min: 0, max: 61 }),
          second: fc.integer({ min: 0, max: 61 }),
          offset: fc.option(fc.record({ sign: fc.constantFrom('+', '-'), hours: fc.integer({ min: 0, max: 15 }), minutes: fc.integer({ min: 0, max: 60 }) })),
        }),
        ({ year, month, day, hour, minute, second, offset }) => {
          const zone = offset === null ? 'Z' : `${offset.sign}${two(offset.hours)}:${two(offset.minutes)}`;
          const text = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}${zone}`;
          const real =
            month >= 1 &&
            month <= 12 &&
            day >= 1 &&
            day <= daysIn(year, month) &&
            hour <= 23 &&
            minute <= 59 &&
            second <= 59 &&
            (offset === null || (offset.minutes <= 59 && offset.hours * 60 + offset.minutes <= 14 * 60));
          assert.deepStrictEqual(calendarTime(text), real ? Date.parse(text) : NaN, text);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  test('examples', () => {
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-11-22T25:00:00Z',
      '2026-11-22T24:00:00Z',
      '2016-12-31T23:59:60Z',
      '2026-04-31T08:00Z',
    ]) {
      assert.ok(Number.isNaN(calendarTime(bad)), bad);
    }
    assert.equal(calendarTime('2024-02-29T23:30:00.5-01:00'), Date.parse('2024-03-01T00:30:00.500Z'));
    assert.equal(calendarTime('0099-01-01T00:00:00Z'), Date.parse('0099-01-01T00:00:00Z'), 'not 1999');
  });
});

describe('the ingest profile', () => {
  test('publishedAt is a real time from 1990 to five minutes ahead of now, normalised to UTC', () => {
    const refused: [string, RegExp][] = [
      ['2026-02-30T00:00:00Z', /^publishedAt is not a real time/],
      ['2026-11-22T25:00:00Z', /^publishedAt is not a real time/],
      ['9999-12-31T23:59:59Z', /^publishedAt must not be more than 5 minutes ahead/],
      ['2026-11-26T12:05:01Z', /^publishedAt must not be more than 5 minutes ahead/],
      ['0000-01-01T00:00:00Z', /^publishedAt must not be before 1990-01-01/],
      ['1989-12-31T23:59:59Z', /^publishedAt must not be before 1990-01-01/],
      ['1990-01-01T00:30:00+01:00', /^publishedAt must not be before 1990-01-01/],
    ];
    for (const [publishedAt, message] of refused) assert.throws(() => ingest('headline', headline({ publishedAt })), { message }, publishedAt);
    for (const [publishedAt, stored] of [
      ['1990-01-01T00:00:00Z', '1990-01-01T00:00:00.000Z'],
      ['2026-11-26T12:05:00Z', '2026-11-26T12:05:00.000Z'],
      ['2026-11-26T13:05:00+01:00', '2026-11-26T12:05:00.000Z'],
      ['2024-02-29T08:00Z', '2024-02-29T08:00:00.000Z'],
    ]) {
      assert.equal(ingest('headline', headline({ publishedAt })).publishedAt, stored, publishedAt);
    }
  });

  test('C0, DEL and C1 control characters are refused in every text, naming the field; tabs and newlines are not', () => {
    for (const c of ['\u0000', '\u0007', '\u001b', '\u007f', '\u0080', '\u0085', '\u009b', '\u009f']) {
      assert.throws(
        () => ingest('headline', headline({ title: `Harbour${c}reopens` })),
        { message: /^title contains a control character\.$/ },
        JSON.stringify(c),
      );
      assert.throws(() => ingest('image', { src: '/media/a.svg', alt: `a${c}`, width: 1, height: 1 }), { message: /^alt contains a control character/ });
      assert.throws(() => ingest('block', { type: 'paragraph', text: `a${c}b` }), { message: /^text contains a control character/ });
    }
    const text = 'One line\n\tand another\r\nwith a no-break\u00a0space';
    assert.equal(ingest('headline', headline({ title: text })).title, text);
    assert.equal(ingest('block', { type: 'quote', text, attribution: text }).text, text);
  });

  test('the answer profile takes what a newsroom API sends as before: any time Date.parse reads, any text', () => {
    const answer = {
      ...headline({ title: 'C1 \u0085 here', publishedAt: '2026-02-30T00:00:00Z' }),
      lead: 'A lead',
      author: 'Kiosk Desk',
      updatedAt: '9999-01-01T00:00:00Z',
      tags: [],
      status: 'published',
      body: [{ type: 'paragraph', text: 'x' }],
      image: { src: '/media/harbour.svg', alt: 'x', caption: '', credit: '', width: 1, height: 1 },
    };
    const parsed = parseWith(answerSchemas.article, answer, 'article', (message) => new Error(message));
    assert.equal(parsed.publishedAt, '2026-02-30T00:00:00Z');
    assert.equal(parsed.title, 'C1 \u0085 here');
  });
});
