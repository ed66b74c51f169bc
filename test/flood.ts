// A client that sends many small requests fast, as one abusive client would: each connection
// writes its share of requests back to back (HTTP/1.1 pipelining, which Node and Nginx answer in
// order) and counts the status lines that come back. A general-purpose client sends a few
// thousand requests a second; this sends tens of thousands from one process.
//
// Why it stays beside the load generators (tools/bench/loadgen.c and Gatling): those send GETs
// at a rate and report a step's latency and totals; the abuse tests send POSTs as fast as the
// server takes them, then assert on every answer (none unanswered, no 500, how many 429s) from
// inside the test, in the same process that then checks a real reader gets through.
import net from 'node:net';

export interface FloodResult {
  /** Answers by status code. */
  statuses: Map<number, number>;
  /** Requests that got no answer before the connection closed or the deadline passed. */
  unanswered: number;
}

/** A POST with no body, as a view beacon is sent; `headers` are added as given. */
export function emptyPost(pathname: string, headers: Record<string, string> = {}): string {
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST ${pathname} HTTP/1.1\r\nHost: kiosk.test\r\nContent-Length: 0\r\n${extra}\r\n`;
}

/** Sends every request over `connections` connections to `baseUrl` and counts the answers. */
export async function flood(baseUrl: string, requests: readonly string[], connections = 16, timeoutMs = 120_000): Promise<FloodResult> {
  const { hostname, port } = new URL(baseUrl);
  const statuses = new Map<number, number>();
  let unanswered = 0;
  const shares = Array.from({ length: connections }, (_, c) => requests.filter((_, i) => i % connections === c));
  await Promise.all(
    shares.map(
      (share) =>
        new Promise<void>((resolve) => {
          if (share.length === 0) return resolve();
          let answered = 0;
          let carry = '';
          const socket = net.connect(Number(port), hostname);
          const timer = setTimeout(() => socket.destroy(), timeoutMs);
          socket.setEncoding('latin1');
          socket.on('data', (chunk: string) => {
            const text = carry + chunk;
            const statusLine = /HTTP\/1\.1 (\d{3}) /g;
            let match: RegExpExecArray | null;
            let last = 0;
            while ((match = statusLine.exec(text)) !== null) {
              const status = Number(match[1]);
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
              answered += 1;
              last = statusLine.lastIndex;
            }
            // A status line split between two chunks is read with the next one.
            carry = text.slice(Math.max(last, text.length - 16));
            if (answered >= share.length) socket.end();
          });
          socket.on('error', () => undefined);
          socket.on('close', () => {
            clearTimeout(timer);
            unanswered += Math.max(0, share.length - answered);
            resolve();
          });
          socket.write(share.join(''));
        }),
    ),
  );
  return { statuses, unanswered };
}
