import type { PageSample } from './articles';
import type { BalanceResult } from './balance';
import type { ChurnResult } from './churn';
import type { DomBudgetResult } from './dom-budget';
import type { Environment } from './environment';
import type { CopiesResult, FloodStart } from './last-good';
import type { StepRecord } from './measure';
import type { BenchOptions } from './options';
import type { PathMix } from './path-mix';
import type { PushCost } from './push-cost';

/**
 * `nginx`: the fallback on, with the production Nginx config in front (pinned on the same core),
 * a storm of new connections; `nginx-keepalive`: the same with keep-alive clients (a load
 * balancer's pool); `nginx-pg*`: both again with the content from PostgreSQL.
 */
export type FallbackMode = 'on' | 'off' | 'nginx' | 'nginx-keepalive' | 'nginx-pg' | 'nginx-pg-keepalive';

/** The same server with its content from PostgreSQL: a throwaway cluster pinned on the generator's core. */
export interface PostgresRun {
  /** `postgres --version` of the cluster's server. */
  version: string;
  /** Cpus_allowed_list of the cluster's processes, read back. */
  pinning: string[];
  capacity: SearchOutcome | null;
  passes?: PassesRecord | null;
  churn?: ChurnResult | null;
}

/**
 * Every article id read once at one rate right after start-up (cold: nothing kept yet), then
 * once more at the same rate (warm): what a first pass costs against steady state. The capacity
 * search comes after both, so it measures a warm server.
 */
export interface PassesRecord {
  /** Ids not read before the cold pass (warm-up read the others). */
  coldIds: number;
  allIds: number;
  cold: StepRecord;
  warm: StepRecord;
}

export interface SearchOutcome {
  name: string;
  /** The result: for SSR capacity, the rate that also held for a full-length step. */
  ratePerS: number;
  /** What the short probes found. */
  searchRatePerS: number;
  /** null: no full-length step was asked for. */
  confirmed: boolean | null;
  /** The search stopped at its ceiling without a failure: the rate is a lower bound. */
  hitCeiling: boolean;
  /** Whose limit the first failing probe above the result hit. */
  limitedBy: 'server' | 'generator' | 'unknown';
  passed: StepRecord | null;
  failedAbove: StepRecord | null;
  probes: StepRecord[];
}

export interface RenderVariant {
  name: string;
  renderPagePerS: number;
  /** The article page as that variant serves it. */
  elements: number;
  bytes: number;
}

export interface RenderReference {
  rawRenderPerS: number;
  renderPagePerS: number;
  /** renderPage with DOM_BUDGET=off: the page the bare-Express reference serves. */
  renderPageOffPerS?: number;
  /** The bare-Express reference's work per request, in process (tools/bench/reference-page.tsx). */
  referencePerS?: number;
  /** Each server-rendering optimisation on and off, in process. */
  variants: RenderVariant[];
  /** What a new story pushed costs the content layer, in process (tools/bench/push-cost.ts). */
  pushCost?: PushCost;
  pages: number;
  appHtmlBytes: number;
  nodeEnv: string | null;
}

export interface OverloadStep extends StepRecord {
  mode: FallbackMode;
  multiplier: number;
  /** Which articles the step read (through Nginx; direct steps read the uniform mix). Absent: uniform. */
  pathMix?: PathMix;
}

export interface Target {
  name: string;
  /** null: not measured in this run. */
  met: boolean | null;
  figures: string;
}

export type PageFigures = Omit<PageSample, 'html' | 'headers'>;

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  durationS: number;
  command: string;
  environment: Environment;
  options: BenchOptions;
  /** Cpus_allowed_list of each process, read back from /proc. */
  pinning: Record<string, string[]>;
  /** The guard's knobs per server started; everything else is the server's default. */
  serverEnv: Record<string, Record<string, string>>;
  page: { articles: number; sample: PageFigures | null; shell: PageFigures | null; sampleElementsShown?: number | null };
  reference: {
    render: RenderReference | null;
    bareBody: string;
    bare: SearchOutcome | null;
    shellPath: SearchOutcome | null;
    /** Nginx alone answering the shell file for every request (keep-alive clients). */
    nginxStatic?: SearchOutcome | null;
    /** Nginx's fallback path: every worker at its limit (SSR_QUEUE_LIMIT=0), the shell from disk. */
    nginxFallback?: SearchOutcome | null;
    /**
     * Bare Express + renderToString serving Kiosk's article page from memory, every block rendered
     * (tools/bench/express-reference.tsx): what Kiosk with DOM_BUDGET=off is compared with.
     */
    express?: (SearchOutcome & { page: PageFigures }) | null;
  };
  /** Which load generator ran the steps. */
  generator?: string;
  capacity: SearchOutcome | null;
  /** SQLite's first pass over cold ids and a warm pass, before the capacity search. */
  passes?: PassesRecord | null;
  /** SQLite at its capacity without CMS pushes, with one a second, and after (null: --skip-churn or no capacity). */
  churn?: ChurnResult | null;
  /** The article page with DOM_BUDGET on and off: elements and SSR capacity of each. */
  domBudget?: DomBudgetResult | null;
  /** null: not run (--skip-postgres, --capacity, or no PostgreSQL server binaries; the notes say which). */
  postgres?: PostgresRun | null;
  steps: OverloadStep[];
  /** The last-good tier's copies kept against not, through Nginx below saturation (null: not measured). */
  lastGood?: CopiesResult | null;
  /** The tier each Zipf flood through Nginx started from: the pass before its steps and the copies it left. */
  floodStarts?: FloodStart[];
  /** The breaking-news workload (95% of requests to 10 articles), page cache off and on. */
  hotSet: (StepRecord & { cache: boolean; multiplier: number })[];
  balance: BalanceResult[];
  targets: Target[];
  notes: string[];
}
