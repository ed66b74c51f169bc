// A minimal HTTP/1.1 response reader for the load generator. It keeps only what the bench
// counts (status, X-Render-Mode, Retry-After, keep-alive) and skips bodies without copying
// them, which is what lets one core offer several times the rate undici could.

export interface HttpAnswer {
  status: number;
  renderMode: string | null;
  retryAfter: boolean;
  keepAlive: boolean;
  bodyBytes: number;
  /** Last-Modified was sent: a static file, which is how Nginx's shell differs from Node's. */
  staticFile: boolean;
}

export class HttpParseError extends Error {
  override name = 'HttpParseError';
}

type State = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailer' | 'until-close';

const headEnd = Buffer.from('\r\n\r\n');
const maxHeadBytes = 64 * 1024;
const maxLineBytes = 1024;
const lineFeed = 0x0a;

export class HttpResponseReader {
  private state: State = 'head';
  private partialHead: Buffer | null = null;
  private line = '';
  private remaining = 0;
  private answer: HttpAnswer | null = null;

  /** True between responses, when a closed connection has cut nothing short. */
  get idle(): boolean {
    return this.state === 'head' && this.partialHead === null;
  }

  /** Reads bytes from the socket; calls `onAnswer` for each response completed. */
  push(chunk: Buffer, onAnswer: (answer: HttpAnswer) => void): void {
    let buf = chunk;
    let off = 0;
    while (off < buf.length) {
      if (this.state === 'head') {
        if (this.partialHead) {
          buf = Buffer.concat([this.partialHead, buf.subarray(off)]);
          off = 0;
          this.partialHead = null;
        }
        const end = buf.indexOf(headEnd, off);
        if (end < 0) {
          if (buf.length - off > maxHeadBytes) throw new HttpParseError('response head too long');
          this.partialHead = Buffer.from(buf.subarray(off));
          return;
        }
        this.startAnswer(buf.toString('latin1', off, end), onAnswer);
        off = end + headEnd.length;
      } else if (this.state === 'body' || this.state === 'chunk-data' || this.state === 'until-close') {
        off = this.skipBody(buf, off, onAnswer);
      } else {
        off = this.readLine(buf, off, onAnswer);
      }
    }
  }

  /** The peer closed the connection: completes a body that was delimited by the close. */
  end(onAnswer: (answer: HttpAnswer) => void): void {
    if (this.state === 'until-close') this.complete(onAnswer);
  }

  private startAnswer(head: string, onAnswer: (answer: HttpAnswer) => void): void {
    const lines = head.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!statusLine) throw new HttpParseError(`bad status line: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
    const status = Number(statusLine[2]);
    const headers = readHeaders(lines);
    // Interim responses (100 Continue) precede the real one.
    if (status < 200) return;
    const connection = headers.get('connection')?.toLowerCase();
    const keepAlive = statusLine[1] === '1' ? connection !== 'close' : connection === 'keep-alive';
    this.answer = {
      status,
      renderMode: headers.get('x-render-mode') ?? null,
      retryAfter: headers.has('retry-after'),
      keepAlive,
      bodyBytes: 0,
      staticFile: headers.has('last-modified'),
    };
    const length = headers.get('content-length');
    if (status === 204 || status === 304) {
      this.complete(onAnswer);
    } else if (headers.get('transfer-encoding')?.toLowerCase().includes('chunked')) {
      this.state = 'chunk-size';
    } else if (length !== undefined) {
      if (!/^\d+$/.test(length)) throw new HttpParseError(`bad content-length: ${length}`);
      this.remaining = Number(length);
      this.state = 'body';
      if (this.remaining === 0) this.complete(onAnswer);
    } else {
      this.answer.keepAlive = false;
      this.state = 'until-close';
    }
  }

  private skipBody(buf: Buffer, off: number, onAnswer: (answer: HttpAnswer) => void): number {
    const available = buf.length - off;
    if (this.state === 'until-close') {
      this.answer!.bodyBytes += available;
      return buf.length;
    }
    const take = Math.min(this.remaining, available);
    this.answer!.bodyBytes += take;
    this.remaining -= take;
    if (this.remaining === 0) {
      if (this.state === 'body') this.complete(onAnswer);
      else {
        this.state = 'chunk-crlf';
        this.line = '';
      }
    }
    return off + take;
  }

  /** Chunk-size lines, the CRLF after each chunk and trailers are short lines ending in LF. */
  private readLine(buf: Buffer, off: number, onAnswer: (answer: HttpAnswer) => void): number {
    const lf = buf.indexOf(lineFeed, off);
    const end = lf < 0 ? buf.length : lf;
    this.line += buf.toString('latin1', off, end);
    if (this.line.length > maxLineBytes) throw new HttpParseError('chunk line too long');
    if (lf < 0) return buf.length;
    const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
    this.line = '';
    this.lineDone(line, onAnswer);
    return lf + 1;
  }

  private lineDone(line: string, onAnswer: (answer: HttpAnswer) => void): void {
    if (this.state === 'chunk-crlf') {
      if (line !== '') throw new HttpParseError('missing CRLF after chunk');
      this.state = 'chunk-size';
    } else if (this.state === 'chunk-size') {
      const size = line.split(';')[0]!.trim();
      if (!/^[0-9a-fA-F]+$/.test(size)) throw new HttpParseError(`bad chunk size: ${JSON.stringify(line)}`);
      this.remaining = parseInt(size, 16);
      this.state = this.remaining === 0 ? 'trailer' : 'chunk-data';
    } else if (line === '') {
      this.complete(onAnswer);
    }
  }

  private complete(onAnswer: (answer: HttpAnswer) => void): void {
    const answer = this.answer!;
    this.answer = null;
    this.state = 'head';
    onAnswer(answer);
  }
}

function readHeaders(lines: string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpParseError(`bad header line: ${JSON.stringify(line.slice(0, 80))}`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}
