// Runs one simulation through loadtest/'s Maven wrapper and turns Gatling's console into
// progress lines. Everything Maven and Gatling print also goes to a log file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadtestDir } from './feed';

export interface GatlingRun {
  simulationClass: string;
  properties: Record<string, string>;
  description: string;
  verbose: boolean;
  logFile: string;
  progress: (line: string) => void;
}

export interface GatlingRunResult {
  exitCode: number | null;
  /** The HTML report's folder, as Gatling announced it; null when it wrote none. */
  reportDir: string | null;
}

/** Quiet Maven: no banner, no download progress, no [INFO]; Gatling's own console still shows. */
export function mavenArgs(run: Pick<GatlingRun, 'simulationClass' | 'properties' | 'description'>, goal = 'gatling:test'): string[] {
  return [
    '--batch-mode',
    '--no-transfer-progress',
    '--quiet',
    goal,
    `-Dgatling.simulationClass=${run.simulationClass}`,
    `-Dgatling.runDescription=${run.description}`,
    ...Object.entries(run.properties).map(([key, value]) => `-D${key}=${value}`),
  ];
}

/** Runs the wrapper in loadtest/ (through sh, so a checkout that lost the executable bit still works). */
export function runMaven(args: string[], onLine: (line: string) => void): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['mvnw', ...args], { cwd: loadtestDir, stdio: ['ignore', 'pipe', 'pipe'] });
    const forward = (stream: NodeJS.ReadableStream) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) onLine(line.replace(/\r$/, ''));
      });
      stream.on('end', () => rest && onLine(rest));
    };
    forward(child.stdout);
    forward(child.stderr);
    // Ctrl-C reaches the whole process group; the run ends when Maven does.
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

// Between blocks: Maven's advice, stack frames and the JDK's preferences notice; the
// exception's message and Maven's one-line failure still show (everything is in the log).
const noise =
  /^\s*$|^\s+at |^\s*\.\.\. \d+ more|^Wrapped by:|^java\.lang\.reflect\.InvocationTargetException|^Parsing log file|user preferences directory|java\.util\.prefs|^\[ERROR\]\s*$|^\[ERROR\] (To see the full|Re-run Maven|For more information|\[Help 1\])/;

/**
 * Gatling prints a block every 5 s: the time elapsed, requests so far (total, OK, KO) and, per
 * scenario, users waiting, active and done. Each block becomes one line.
 */
export class ConsoleProgress {
  private inBlock = false;
  private elapsed: string | null = null;
  private requests: { total: number; ko: number } | null = null;
  private scenario: string | null = null;
  private readonly active = new Map<string, number>();
  reportDir: string | null = null;

  /** verbose: every line as it is; else one line per block and the lines between blocks. */
  constructor(
    private readonly emit: (line: string) => void,
    private readonly verbose = false,
  ) {}

  line(text: string): void {
    if (this.verbose) {
      this.emit(text);
      this.readReportDir(text);
      return;
    }
    if (/^={20,}$/.test(text)) {
      if (this.inBlock) this.closeBlock();
      this.inBlock = !this.inBlock;
      return;
    }
    if (this.readReportDir(text)) return;
    if (this.inBlock) {
      this.readBlockLine(text);
      return;
    }
    if (noise.test(text)) return;
    this.emit(text.replace(/^Simulation \S+\.(\w+) started\.\.\.$/, '$1 started'));
  }

  private readReportDir(text: string): boolean {
    const report = /please open the following file: (file:\S+)/.exec(text);
    if (report) this.reportDir = path.dirname(fileURLToPath(report[1]!));
    return report !== null;
  }

  private readBlockLine(text: string): void {
    const elapsed = /(\d+)s elapsed\s*$/.exec(text);
    if (elapsed) {
      this.elapsed = elapsed[1]!;
      return;
    }
    const global = /^> Global\s*\|\s*([\d,]+)\s*\|\s*([\d,]+)\s*\|\s*([\d,]+)/.exec(text);
    if (global) {
      this.requests = { total: Number(global[1]!.replace(/,/g, '')), ko: Number(global[3]!.replace(/,/g, '')) };
      return;
    }
    const scenario = /^---- (.+?) -{3,}$/.exec(text);
    if (scenario) {
      this.scenario = scenario[1] === 'Requests' ? null : scenario[1]!;
      return;
    }
    const users = /waiting:\s*(\d+)\s*\/\s*active:\s*(\d+)\s*\/\s*done:\s*(\d+)/.exec(text);
    if (users && this.scenario !== null) this.active.set(this.scenario, Number(users[2]));
  }

  private closeBlock(): void {
    if (this.elapsed !== null) {
      const n = new Intl.NumberFormat('en-GB');
      const users = [...this.active.values()].reduce((a, b) => a + b, 0);
      const running = [...this.active].filter(([, count]) => count > 0).map(([name]) => name);
      const requests = this.requests ? `${n.format(this.requests.total)} requests, ${n.format(this.requests.ko)} KO` : 'no requests yet';
      const step = this.active.size > 1 && running.length ? ` (${running.join(', ')})` : '';
      this.emit(`${this.elapsed} s: ${requests}, ${n.format(users)} users active${step}`);
    }
    this.elapsed = null;
    this.requests = null;
    this.scenario = null;
    this.active.clear();
  }
}

export async function runGatling(run: GatlingRun): Promise<GatlingRunResult> {
  fs.mkdirSync(path.dirname(run.logFile), { recursive: true });
  const log = fs.createWriteStream(run.logFile);
  const gatling = new ConsoleProgress(run.progress, run.verbose);
  const exitCode = await runMaven(mavenArgs(run), (line) => {
    log.write(line + '\n');
    gatling.line(line);
  });
  await new Promise<void>((resolve) => log.end(() => resolve()));
  return { exitCode, reportDir: gatling.reportDir };
}
