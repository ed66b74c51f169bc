// The native generator (loadgen.c) behind the same interface as the Node one (generator.ts):
// built once per run with the system's C compiler, then one pinned process per step.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generatorCore, pinned } from './processes';
import type { GeneratorResult, StepSpec } from './protocol';

export interface LoadGenerator {
  /** The process whose CPU counts as the generator's (for the native one, the current step's). */
  readonly pid: number;
  readonly kind: 'native' | 'node';
  run(step: Omit<StepSpec, 'id'>, onWindow: (phase: 'measuring' | 'measured') => void): Promise<GeneratorResult>;
  stop(): void;
}

/** Compiles loadgen.c into `outDir` when it is newer than the binary; null with the reason when there is no compiler. */
export function buildNativeGenerator(root: string, outDir: string): { binary: string } | { error: string } {
  const source = path.join(root, 'tools/bench/loadgen.c');
  const binary = path.join(outDir, 'loadgen');
  if (fs.existsSync(binary) && fs.statSync(binary).mtimeMs >= fs.statSync(source).mtimeMs) return { binary };
  fs.mkdirSync(outDir, { recursive: true });
  const cc = spawnSync('cc', ['-O2', '-Wall', '-o', binary, source], { encoding: 'utf8' });
  if (cc.error || cc.status !== 0) return { error: `cc failed: ${cc.error?.message ?? cc.stderr.trim()}` };
  return { binary };
}

export class NativeGenerator implements LoadGenerator {
  readonly kind = 'native';
  private child: ChildProcess | null = null;
  private lastPid = 0;
  /** Carries on across steps, so each step reads different articles than the one before. */
  private rotation = 0;

  constructor(
    private readonly binary: string,
    private readonly pathsFile: string,
  ) {}

  get pid(): number {
    return this.child?.pid ?? this.lastPid;
  }

  run(step: Omit<StepSpec, 'id'>, onWindow: (phase: 'measuring' | 'measured') => void): Promise<GeneratorResult> {
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
      child.once('exit', (code) => {
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
