import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { staleBuildReason } from '@kiosk/surface';

export interface Environment {
  cpuModel: string;
  cores: number;
  nodeVersion: string;
  commit: string;
  kernel: string;
  loadAverage: number[];
  /** How dist/ came to be what was measured. */
  build: string;
}

function cpuModel(): string {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  return /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
}

function git(root: string, args: string[]): string | null {
  const out = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : null;
}

function commit(root: string): string {
  const head = git(root, ['rev-parse', '--short', 'HEAD']);
  if (!head) return 'unknown';
  const dirty = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return dirty ? `${head}-dirty` : head;
}

/** Builds when dist/ is missing, or stale unless the caller said not to; returns what happened. */
export function ensureBuild(root: string, rebuildStale: boolean, log: (line: string) => void): string {
  const stale = staleBuildReason(root);
  if (!stale) return 'dist/ up to date';
  const missing = stale.includes('missing') || stale.includes('unreadable');
  if (!missing && !rebuildStale) return `used as is (--no-build) although ${stale}`;
  log(`building: ${stale}`);
  // webpack's output goes to stderr with our progress; stdout carries only the report.
  const build = spawnSync('npx', ['webpack', '--mode', 'production'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) throw new Error(`the build failed (exit ${build.status})`);
  return `rebuilt (${stale})`;
}

export function describeEnvironment(root: string, build: string): Environment {
  return {
    cpuModel: cpuModel(),
    // availableParallelism() would say 1: this process is pinned to one core.
    cores: os.cpus().length,
    nodeVersion: process.version,
    commit: commit(root),
    kernel: os.release(),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
    build,
  };
}
