// How steady the host was, measured on the server's core right before the churn steps:
// steadiness.c times the same fixed work in chunks, arithmetic and memory-bound alternately.
// On this machine (a 2-vCPU VM) arithmetic chunks stay within a few percent of each other while
// memory-bound chunks of identical work vary two- to fourfold over seconds: most likely
// something else on the host sharing its cache and memory. A server that renders pages from a heap of
// hundreds of megabytes is memory-bound enough to feel it, so CPU per request moves between
// windows with nothing changed in the server. The spread printed beside the churn figures is
// that noise, measured, rather than assumed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pinned, serverCore } from './processes';
import { percentile } from '@kiosk/surface';

/** Nearest-rank percentiles of one kind's chunk times, in ms of the thread's CPU time. */
export interface ChunkSpread {
  chunks: number;
  p10: number;
  p50: number;
  p90: number;
  /** p90 over p10: 1.00 on a steady machine. */
  ratio: number;
}

export interface Steadiness {
  seconds: number;
  arithmetic: ChunkSpread;
  memory: ChunkSpread;
}

/** The spread of `times` (ms); NaN figures for none. */
export function chunkSpread(times: readonly number[]): ChunkSpread {
  const p10 = percentile(times, 0.1);
  const p90 = percentile(times, 0.9);
  return { chunks: times.length, p10, p50: percentile(times, 0.5), p90, ratio: p10 > 0 ? p90 / p10 : Number.NaN };
}

/** steadiness.c's JSON line, summarised; throws on anything else. */
export function parseSteadiness(line: string, seconds: number): Steadiness {
  const parsed = JSON.parse(line) as { arithmetic?: unknown; memory?: unknown };
  const times = (value: unknown, kind: string): number[] => {
    if (!Array.isArray(value) || value.length === 0 || !value.every((t) => typeof t === 'number' && t >= 0))
      throw new Error(`steadiness printed no ${kind} chunk times`);
    return value as number[];
  };
  return { seconds, arithmetic: chunkSpread(times(parsed.arithmetic, 'arithmetic')), memory: chunkSpread(times(parsed.memory, 'memory')) };
}

/** Compiles steadiness.c beside loadgen (bench-results/.bin/) when the binary is missing or older. */
function binary(root: string): string {
  const source = path.join(root, 'tools/bench/steadiness.c');
  const out = path.join(root, 'bench-results', '.bin', 'steadiness');
  if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= fs.statSync(source).mtimeMs) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const cc = spawnSync('cc', ['-O2', '-Wall', '-o', out, source], { encoding: 'utf8' });
  if (cc.error || cc.status !== 0) throw new Error(`tools/bench/steadiness.c could not be built: ${cc.error?.message ?? cc.stderr.trim()}`);
  return out;
}

/** Runs the chunks on the server's core for `seconds` (the server idle meanwhile). */
export function measureSteadiness(root: string, seconds: number): Promise<Steadiness> {
  const [command, args] = pinned(serverCore, binary(root), [String(seconds)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    // 'close': its output read to the end (an exit can be reported first; native-generator.ts).
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`steadiness exited with ${code}: ${err.trim()}`));
        return;
      }
      try {
        resolve(parseSteadiness(out.trim(), seconds));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** Seconds of chunks before each store's churn steps: 8, or 2 in a --quick run. */
export function steadinessSeconds(quick: boolean): number {
  return quick ? 2 : 8;
}

/** "6.8–14.2 ms (p10–p90, 2.09x)" */
export function chunkRange(spread: ChunkSpread): string {
  const figure = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
  return `${figure(spread.p10)}–${figure(spread.p90)} ms (p10–p90, ${Number.isFinite(spread.ratio) ? spread.ratio.toFixed(2) : '–'}x)`;
}
