// For tests: a newsroom API that misbehaves on demand. In `ok` mode it relays to a real Kiosk
// (whose /api is the newsroom API's shape); every other mode is a way a real one fails.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type NewsroomMode =
  /** Relay to the Kiosk behind it. */
  | 'ok'
  /** Read the request, never answer. */
  | 'hang'
  /** Reset the connection (TCP RST) on the request. */
  | 'reset'
  /** A 500 with a JSON error. */
  | 'error500'
  /** 200, application/json, a body that is not JSON. */
  | 'not-json'
  /** 200, JSON of the wrong shape. */
  | 'wrong-shape'
  /** 200, an HTML page. */
  | 'html'
  /** 200 and headers at once, then the body a byte every 100 ms, forever. */
  | 'slow'
  /** 200 and a JSON body of 10 MB. */
  | 'huge'
  /** Whatever `custom` answers. */
  | 'custom';

export interface FlakyNewsroom {
  /** What CONTENT_API_URL is set to. */
  readonly url: string;
  mode: NewsroomMode;
  custom: (path: string) => { status: number; type: string; body: string };
  /** Requests and connections seen so far. */
  readonly requests: number;
  /** The path (and query) of every request seen so far, in order. */
  readonly paths: readonly string[];
  readonly connections: number;
  close(): Promise<void>;
}

export async function startFlakyNewsroom(kioskBaseUrl: string): Promise<FlakyNewsroom> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let requests = 0;
  const paths: string[] = [];
  let connections = 0;

  const state: Pick<FlakyNewsroom, 'mode' | 'custom'> = {
    mode: 'ok',
    custom: () => ({ status: 200, type: 'application/json', body: '{}' }),
  };

  function json(res: http.ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8') {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  async function relay(req: http.IncomingMessage, res: http.ServerResponse) {
    const answer = await fetch(kioskBaseUrl + (req.url ?? '/'), { redirect: 'manual' });
    json(res, answer.status, await answer.text(), answer.headers.get('content-type') ?? 'application/octet-stream');
  }

  function trickle(res: http.ServerResponse, chunk: string, everyMs: number) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const timer = setInterval(() => {
      if (res.destroyed) {
        clearInterval(timer);
        timers.delete(timer);
      } else {
        res.write(chunk);
      }
    }, everyMs);
    timers.add(timer);
  }

  function huge(res: http.ServerResponse) {
    const chunk = Buffer.alloc(64 * 1024, '0,');
    let left = 160;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('[');
    const more = () => {
      while (left > 0 && !res.destroyed) {
        left -= 1;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      if (!res.destroyed) res.end('0]');
    };
    more();
  }

  const server = http.createServer((req, res) => {
    requests += 1;
    paths.push(req.url ?? '/');
    switch (state.mode) {
      case 'ok':
        relay(req, res).catch(() => res.destroy());
        return;
      case 'hang':
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'error500':
        return json(res, 500, '{"error":{"code":"internal","message":"boom"}}');
      case 'not-json':
        return json(res, 200, 'this is {not JSON');
      case 'wrong-shape':
        return json(res, 200, '{"lead":42,"sections":"all of them","items":null,"article":{"id":[]}}');
      case 'html':
        return json(res, 200, '<!doctype html><title>Newsroom</title><p>Maintenance</p>', 'text/html; charset=utf-8');
      case 'slow':
        return trickle(res, ' ', 100);
      case 'huge':
        return huge(res);
      case 'custom': {
        const answer = state.custom(req.url ?? '/');
        return json(res, answer.status, answer.body, answer.type);
      }
    }
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return Object.defineProperties(state as FlakyNewsroom, {
    url: { value: `http://127.0.0.1:${port}/api`, enumerable: true },
    requests: { get: () => requests, enumerable: true },
    paths: { get: () => paths, enumerable: true },
    connections: { get: () => connections, enumerable: true },
    close: {
      value: async () => {
        for (const timer of timers) clearInterval(timer);
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    },
  });
}
