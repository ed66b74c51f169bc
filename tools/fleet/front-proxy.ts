// A stand-in for the load balancer in front of a local fleet: round robin over the instances
// that pass their health check (GET /healthz, as the ALB is configured: a target is taken out
// after `unhealthyThreshold` failed checks and back after `healthyThreshold` good ones), and
// each answer says which instance gave it (X-Fleet-Instance). A GET whose connection fails
// before any answer is tried once more on another healthy instance, as Nginx's
// proxy_next_upstream does; an ALB alone would return that request's 502.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Target {
  name: string;
  /** http://127.0.0.1:PORT */
  url: string;
}

export interface FrontProxyOptions {
  intervalMs?: number;
  timeoutMs?: number;
  healthyThreshold?: number;
  unhealthyThreshold?: number;
  /** Try a failed GET on another instance (default true). */
  retry?: boolean;
}

export interface HealthChange {
  atMs: number;
  target: string;
  healthy: boolean;
}

export interface FrontProxy {
  url: string;
  healthy(): string[];
  changes: HealthChange[];
  close(): Promise<void>;
}

interface State {
  target: Target;
  healthy: boolean;
  streak: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export async function startFrontProxy(targets: Target[], options: FrontProxyOptions = {}): Promise<FrontProxy> {
  const { intervalMs = 500, timeoutMs = 400, healthyThreshold = 2, unhealthyThreshold = 2, retry = true } = options;
  const states: State[] = targets.map((target) => ({ target, healthy: true, streak: 0 }));
  const changes: HealthChange[] = [];
  let next = 0;

  function check(state: State) {
    const done = (ok: boolean) => {
      if (ok === state.healthy) {
        state.streak = 0;
        return;
      }
      state.streak += 1;
      if (state.streak >= (ok ? healthyThreshold : unhealthyThreshold)) {
        state.healthy = ok;
        state.streak = 0;
        changes.push({ atMs: performance.now(), target: state.target.name, healthy: ok });
      }
    };
    const request = http.get(`${state.target.url}/healthz`, { timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => done(response.statusCode === 200));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => done(false));
  }
  const timer = setInterval(() => states.forEach(check), intervalMs);

  function pick(except?: State): State | undefined {
    const healthy = states.filter((s) => s.healthy && s !== except);
    if (healthy.length === 0) return undefined;
    next = (next + 1) % healthy.length;
    return healthy[next];
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse, state: State | undefined, retried: boolean) {
    if (state === undefined) {
      res.writeHead(503, { 'Content-Type': 'text/plain' }).end('no healthy instance\n');
      return;
    }
    const upstream = http.request(
      `${state.target.url}${req.url ?? '/'}`,
      { method: req.method, headers: { ...req.headers, connection: 'keep-alive' }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-fleet-instance': state.target.name });
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (retry && !retried && (req.method === 'GET' || req.method === 'HEAD')) {
        forward(req, res, pick(state), true);
        return;
      }
      res.writeHead(502, { 'Content-Type': 'text/plain' }).end('bad gateway\n');
    });
    // A GET has no body, and on a retry the request stream has already ended.
    if (req.method === 'GET' || req.method === 'HEAD') upstream.end();
    else req.pipe(upstream);
  }

  const server = http.createServer((req, res) => forward(req, res, pick(), false));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    healthy: () => states.filter((s) => s.healthy).map((s) => s.target.name),
    changes,
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
