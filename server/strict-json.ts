import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { KioskError } from './errors';

// A JSON request body read strictly: UTF-8 or refused (a decoder that replaces bad bytes with
// U+FFFD would store text nobody wrote), and every object's keys unique (JSON.parse keeps the
// last of two, while a gateway or log reader that keeps the first would see another article).
// JSON.parse checks the syntax and builds the value; one pass over the text, already known to be
// valid JSON, then finds a key given twice. Reading the bytes stays with Express's raw parser, so
// the byte limit (413), content encodings and aborted uploads behave as express.json's did.
//
// JSON.parse's keys are not trusted when a key is written with an escape: V8 (13.6 in Node 24,
// reported still in 14.6) may read an escaped key through a map an earlier parse made, so after
// `{"\u005c":0}` the body `{"\u0059":0}` comes back with the key `\`, not `Y`
// (https://github.com/nodejs/node/issues/63785). Such a body's value is built here instead.

const notJson = 'The body is not valid JSON.';
const notUtf8 = 'The body is not valid UTF-8.';
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A key in a message: clipped, since a key can be as long as the body. */
function keyName(key: string): string {
  return key === '' ? '""' : key.length > 40 ? `${key.slice(0, 40)}…` : key;
}

interface Frame {
  /** An object's keys so far; null for an array. */
  keys: Set<string> | null;
  /** The object's latest key, or the array's current index. */
  at: string | number;
  /** In an object: the next string is a key (after `{` or `,`), not a value (after `:`). */
  expectKey: boolean;
}

function pathOf(frames: readonly Frame[], key: string): string {
  let path = '';
  for (const frame of [...frames.slice(0, -1).map((f) => f.at), key]) {
    path += typeof frame === 'number' ? `[${frame}]` : `${path === '' ? '' : '.'}${keyName(frame)}`;
  }
  return path;
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
}

/** What one pass over `text`, valid JSON, finds: the first key given twice, and any escaped key. */
function scanKeys(text: string): { duplicate: string | null; escapedKey: boolean } {
  const frames: Frame[] = [];
  let escapedKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      const top = frames[frames.length - 1];
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i + 1, end);
        // "title" and "\u0074itle" are the same key.
        const escaped = raw.includes('\\');
        escapedKey ||= escaped;
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) return { duplicate: pathOf(frames, key), escapedKey };
        top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      frames.push({ keys: new Set(), at: '', expectKey: true });
    } else if (c === 0x5b) {
      frames.push({ keys: null, at: 0, expectKey: false });
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c) {
      const top = frames[frames.length - 1]!;
      if (top.keys) top.expectKey = true;
      else top.at = (top.at as number) + 1;
    }
  }
  return { duplicate: null, escapedKey };
}

/** The path of the first key given twice in one object of `text`, valid JSON; null if none is. */
export function duplicateKeyPath(text: string): string | null {
  return scanKeys(text).duplicate;
}

const jsonNumber = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The value of `text`, valid JSON, built without JSON.parse's objects (see the top): strings are
 * JSON.parse's (a lone string has no keys to misread), numbers Number's (the same nearest double),
 * and each key a property of its own, `__proto__` too. No recursion, so nesting has no limit here.
 */
function jsonValueOf(text: string): unknown {
  const open: (Record<string, unknown> | unknown[])[] = [];
  let key: string | null = null;
  let root: unknown;
  const place = (value: unknown): void => {
    const parent = open[open.length - 1];
    if (parent === undefined) root = value;
    else if (Array.isArray(parent)) parent.push(value);
    else {
      Object.defineProperty(parent, key!, { value, writable: true, enumerable: true, configurable: true });
      key = null;
    }
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      const raw = text.slice(i + 1, end);
      const string = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
      const parent = open[open.length - 1];
      // In an object, a string with no key before it is the key.
      if (parent !== undefined && !Array.isArray(parent) && key === null) key = string;
      else place(string);
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      const container = c === 0x7b ? {} : [];
      place(container);
      open.push(container);
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
    } else if (c === 0x74) {
      place(true);
      i += 3;
    } else if (c === 0x66) {
      place(false);
      i += 4;
    } else if (c === 0x6e) {
      place(null);
      i += 3;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      jsonNumber.lastIndex = i;
      const number = jsonNumber.exec(text)![0];
      place(Number(number));
      i += number.length - 1;
    }
    // Whitespace, `,` and `:` only separate.
  }
  return root;
}

/**
 * `text` as JSON, an object or an array at the top (as express.json's strict mode); an empty
 * body is `{}`, as it was. Throws KioskError('badRequest') saying what is wrong: not JSON, or
 * which key is given twice.
 */
export function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  // Whitespace JSON does not allow before a `{` is JSON.parse's to refuse.
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') throw new KioskError('badRequest', notJson);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new KioskError('badRequest', notJson);
  }
  const { duplicate, escapedKey } = scanKeys(text);
  if (duplicate !== null) throw new KioskError('badRequest', `${duplicate} is given twice in the body; each key may appear once.`);
  return escapedKey ? jsonValueOf(text) : value;
}

/** The bytes as UTF-8 JSON (parseStrictJson); a leading byte order mark is dropped, as before. */
export function parseStrictJsonBytes(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new KioskError('badRequest', notUtf8);
  }
  return parseStrictJson(text);
}

const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** Parses an application/json body of at most `limit` bytes into req.body; other bodies are left alone. */
export function strictJsonBody(limit: number): RequestHandler {
  const readBytes = express.raw({ limit, type: 'application/json' });
  return (req: Request, res: Response, next: NextFunction) => {
    readBytes(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      if (!Buffer.isBuffer(req.body)) {
        next();
        return;
      }
      // JSON between systems is UTF-8 (RFC 8259); a body labelled otherwise is refused.
      const charset = charsetParameter.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        next(new KioskError('unsupportedMediaType', 'Send the body as application/json in UTF-8.'));
        return;
      }
      try {
        req.body = parseStrictJsonBytes(req.body);
      } catch (parseError) {
        next(parseError);
        return;
      }
      next();
    });
  };
}
