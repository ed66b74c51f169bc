// The load generator, in a process of its own that the orchestrator pins to core 1.
// Usage (by the orchestrator only): node --import tsx tools/bench/generator.ts PATHS.json
import fs from 'node:fs';
import { ConnectionPool } from './connection-pool';
import { requestsDue, scheduledTime, StepTally } from './open-loop';
import type { FromGenerator, GeneratorResult, StepSpec, ToGenerator } from './protocol';

const expireEveryMs = 50;
// A browser's user agent, so a guard that treats crawlers differently sees readers.
const userAgent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

const paths = JSON.parse(fs.readFileSync(process.argv[2] ?? '', 'utf8')) as string[];
if (!Array.isArray(paths) || paths.length === 0) throw new Error('generator: no paths to request');
// Carries on across steps, so each step reads different articles than the one before.
let rotation = 0;
const requestCache = new Map<string, Buffer[]>();

function tell(message: FromGenerator): void {
  process.send?.(message);
}

function requestsFor(host: string, port: number): Buffer[] {
  const key = `${host}:${port}`;
  let requests = requestCache.get(key);
  if (!requests) {
    const head = `Host: ${key}\r\nUser-Agent: ${userAgent}\r\nAccept: text/html\r\n\r\n`;
    requests = paths.map((path) => Buffer.from(`GET ${path} HTTP/1.1\r\n${head}`, 'latin1'));
    requestCache.set(key, requests);
  }
  return requests;
}

async function runStep(step: StepSpec): Promise<GeneratorResult> {
  const requests = requestsFor(step.host, step.port);
  const rate = step.ratePerS;
  const total = Math.max(1, Math.round(rate * (step.warmupS + step.durationS)));
  const start = performance.now() + 5;
  const windowStart = start + step.warmupS * 1000;
  const windowEnd = windowStart + step.durationS * 1000;
  // The warm-up is tallied apart: its failures are not the step's, but they can hold
  // connections well into it, so they are reported.
  const tallies = [new StepTally(windowStart, windowEnd, step.timeoutMs), new StepTally(start, windowStart, step.timeoutMs)] as const;
  const pool = new ConnectionPool(step, step.maxConnections, {
    written: (request) => tallies.forEach((t) => t.written(request.scheduledAt, request.writtenAt)),
    answered: (request, answer) => {
      const at = performance.now();
      tallies.forEach((t) => t.answered(request.scheduledAt, at, answer));
    },
    failed: (request, code) => tallies.forEach((t) => t.failed(request.scheduledAt, code)),
    timedOut: (request) => tallies.forEach((t) => t.timedOut(request.scheduledAt, request.writtenAt > 0)),
  });

  let issued = 0;
  let lastExpire = start;
  let phase: 'warmup' | 'measuring' | 'draining' = 'warmup';
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = requestsDue(now - start, rate, total);
      for (; issued < due; issued++) {
        const scheduledAt = scheduledTime(start, issued, rate);
        tallies.forEach((t) => t.scheduledOne(scheduledAt));
        pool.submit({ scheduledAt, bytes: requests[rotation++ % requests.length]!, writtenAt: 0 });
      }
      if (now - lastExpire >= expireEveryMs) {
        pool.expire(now, step.timeoutMs);
        lastExpire = now;
      }
      if (phase === 'warmup' && now >= windowStart) {
        phase = 'measuring';
        tell({ type: 'measuring', id: step.id });
      }
      if (phase === 'measuring' && now >= windowEnd) {
        phase = 'draining';
        tell({ type: 'measured', id: step.id });
      }
      if (issued >= total && phase === 'draining' && pool.outstanding === 0) resolve();
      // A 1 ms timer lets I/O run between batches; the schedule, not the timer, sets the rate.
      else setTimeout(tick, issued < total ? 1 : 10);
    };
    setTimeout(tick, 5);
  });
  pool.close();
  const [measured, warmup] = tallies;
  return { counts: measured.summary(rate), warmup: warmup.summary(rate), pool: pool.stats() };
}

process.on('message', (message: ToGenerator) => {
  if (message.type === 'exit') process.exit(0);
  const { step } = message;
  runStep(step).then(
    (result) => tell({ type: 'result', id: step.id, result }),
    (error: unknown) => tell({ type: 'failed', id: step.id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The orchestrator is gone: nothing will read our results.
process.on('disconnect', () => process.exit(0));
tell({ type: 'ready' });
