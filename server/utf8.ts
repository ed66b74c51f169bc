import { transcode } from 'node:buffer';

// A page's text as UTF-8 bytes, fast. A page is a two-byte string in V8 as soon as it holds one
// character above U+00FF (a typographic quote or dash in an article is enough), and Buffer.from
// encodes a two-byte string about six times slower than a one-byte one: on this machine 152 µs
// for 34 KB against 26 µs for the same bytes through a UTF-16 copy and transcode (simdutf/ICU),
// and 14 against 21 µs the other way for a one-byte string. Encoding pages was 13.6% of a busy
// worker's CPU in a profile (the bare Express and churn record in docs/benchmarks/). transcode
// refuses a lone surrogate, which Buffer.from writes as U+FFFD: that text takes the slow path,
// so the bytes are Buffer.from's in every case (server/utf8.test.ts).

export function utf8(text: string): Buffer {
  try {
    return transcode(Buffer.from(text, 'utf16le'), 'utf16le', 'utf8');
  } catch {
    return Buffer.from(text);
  }
}
