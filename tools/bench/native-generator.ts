// The bench's load generator: loadgen.c, built once per run with the system's C compiler, then
// one pinned process per step. What a step asks of it and what it prints are described here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generatorCore, pinned } from './processes';

/** One open-loop step: request i is due at start + i/rate, whatever happened to the ones before. */
export interface StepSpec {
  host: string;
  port: number;
  ratePerS: number;
  warmupS: number;
  durationS: number;
  timeoutMs: number;
  maxConnections: number;
}

/** Nearest-rank percentiles of a step's samples; NaN (null in loadgen's JSON) when there were none. */
export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * What loadgen counted in one window. A request's fate (answer, failure, timeout, latency)
 * counts when it was scheduled inside the window; throughput (sent, achieved, server-rendered
 * per second) counts what happened on the wire inside it.
 */
export interface StepCounts {
  offeredPerS: number;
  windowS: number;
  /** Requests scheduled inside the measured window: the denominator of every share. */
  scheduled: number;
  /** Request writes that happened during the window, whenever they were scheduled. */
  sentPerS: number;
  answered: number;
  ok: number;
  /** 2xx answers that arrived during the window, whenever they were scheduled: throughput. */
  achievedPerS: number;
  non2xx: number;
  status503: number;
  status503WithRetryAfter: number;
  errors: number;
  errorCodes: Record<string, number>;
  timeouts: number;
  /** Timed out before any connection took them: the generator never sent them. */
  timeoutsUnsent: number;
  /**
   * 2xx answers by X-Render-Mode, which says who made the page: `ssr` rendered fresh by a worker,
   * `last-good` the last copy of it a worker rendered (answered by Nginx when every worker is
   * full), `shell` the overload shell. A value the generator does not know counts as
   * unknownMode, an answer without the header as noMode: neither is ever counted server-rendered.
   */
  ssr: number;
  lastGood: number;
  /** Shells from Node and from Nginx; shellNginx counts Nginx's own (a static file, with Last-Modified). */
  shell: number;
  shellNginx: number;
  unknownMode: number;
  noMode: number;
  ssrShare: number;
  /** Server-rendered 2xx answers that arrived during the window. */
  ssrPerS: number;
  /** Last-good 2xx answers that arrived during the window. */
  lastGoodPerS: number;
  /** Timeouts enter the latency percentiles at the timeout, so a step cannot hide them. */
  latencyMs: LatencySummary;
  /** Scheduled-to-written delay: how far the generator itself fell behind. */
  sendDelayMs: LatencySummary;
}

/** loadgen's keep-alive connections, opened on demand up to the step's cap. */
export interface PoolStats {
  opened: number;
  peakOpen: number;
  connectErrors: number;
  /** Requests that found every connection busy and waited in the generator's queue. */
  waitedForConnection: number;
  /** TCP connect times: a second or more means SYNs dropped on a full listen queue. */
  connectMs: LatencySummary;
}

/** loadgen's last line: the measured window, the warm-up (tallied apart) and the connections. */
export interface GeneratorResult {
  counts: StepCounts;
  warmup: StepCounts;
  pool: PoolStats;
}

/** Compiles loadgen.c into `outDir` unless the binary there is newer; the compiler's error when it fails. */
export function buildNativeGenerator(root: string, outDir: string): { binary: string } | { error: string } {
  const source = path.join(root, 'tools/bench/loadgen.c');
  const binary = path.join(outDir, 'loadgen');
  if (fs.existsSync(binary) && fs.statSync(binary).mtimeMs >= fs.statSync(source).mtimeMs) return { binary };
  fs.mkdirSync(outDir, { recursive: true });
  const cc = spawnSync('cc', ['-O2', '-Wall', '-o', binary, source], { encoding: 'utf8' });
  if (cc.error || cc.status !== 0) return { error: `cc failed: ${cc.error?.message ?? cc.stderr.trim()}` };
  return { binary };
}

/** Builds loadgen.c into bench-results/.bin/ when needed; throws with the reason when it cannot. */
export function nativeGeneratorBinary(root: string): string {
  const built = buildNativeGenerator(root, path.join(root, 'bench-results', '.bin'));
  if ('error' in built) throw new Error(`the load generator (tools/bench/loadgen.c) could not be built: ${built.error}`);
  return built.binary;
}

export class NativeGenerator {
  private child: ChildProcess | null = null;
  private lastPid = 0;
  /** Carries on across steps, so each step reads different articles than the one before. */
  private rotation = 0;

  constructor(
    private readonly binary: string,
    private readonly pathsFile: string,
  ) {}

  /** The process whose CPU counts as the generator's: the current step's (or the last one's). */
  get pid(): number {
    return this.child?.pid ?? this.lastPid;
  }

  run(step: StepSpec, onWindow: (phase: 'measuring' | 'measured') => void): Promise<GeneratorResult> {
    const total = Math.max(1, Math.round(step.ratePerS * (step.warmupS + step.durationS)));
    const args = [step.host, step.port, step.ratePerS, step.warmupS, step.durationS, step.timeoutMs, step.maxConnections, this.pathsFile, this.rotation].map(
      String,
    );
    this.rotation += total;
    const [command, commandArgs] = pinned(generatorCore, this.binary, args);
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.lastPid = child.pid ?? 0;
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'measuring' || line === 'measured') onWindow(line);
        else stdout += line;
      }
    });
    return new Promise((resolve, reject) => {
      // 'close', not 'exit': the exit can be reported before the last of stdout is read, and the
      // result would be cut short (native-generator.test.ts).
      child.once('close', (code) => {
        this.child = null;
        if (code !== 0) {
          reject(new Error(`loadgen exited with ${code}: ${stderr.trim()}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout + partial) as GeneratorResult);
        } catch (error) {
          reject(new Error(`loadgen printed no result: ${(error as Error).message}; stderr: ${stderr.trim()}`));
        }
      });
    });
  }

  stop(): void {
    this.child?.kill('SIGKILL');
  }
}
