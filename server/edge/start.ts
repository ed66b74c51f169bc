import { edgePurgeActive, type Config } from '../config';
import type { ContentChange } from '../content/changes';
import { listenForChanges } from '../content/postgres-listener';
import { openSqliteStore } from '../content/sqlite';
import { log } from '../log';
import { PurgeBudget, shortestPurgedLifetimeS } from './budget';
import { cloudFrontTarget, type EdgeTarget } from './cloudfront';
import { electPurgeSender } from './leader';
import { PurgeSender, type PurgeStats } from './purge';
import { purgeItems, takesBack } from './tags';

// Edge purge in the primary process: the store's change feed, the one sender of the fleet, and
// CloudFront (or the dry run). Exactly one sender:
// - SQLite: one machine, so its primary sends, from the change log its triggers write.
// - PostgreSQL: every primary LISTENs; the one holding the advisory lock (leader.ts) sends. A
//   stand-by keeps what it heard in the last `takeoverReplayMs` and sends that when it takes
//   over, so a change the old sender heard but had not yet sent when it stopped is not lost (a
//   change it had sent is sent once more: a few paths, never a missed purge). With a purge budget
//   the old sender may have held a batch up to the shortest edge lifetime, so the stand-by keeps
//   that long.
// - The newsroom API has no feed: nothing to purge by, and pages keep the short lifetimes.

export interface EdgePurge extends PurgeStats {
  /** This primary is the fleet's sender now. */
  readonly sending: boolean;
  /** Calls reach CloudFront (false: the dry run). */
  readonly live: boolean;
  /** Sends what is pending (if this one is the sender) within `withinMs`, then lets go of everything. */
  close(withinMs: number): Promise<void>;
}

export interface EdgePurgeOverrides {
  /** How often a stand-by asks for the sender lock (1 s). */
  pollMs?: number;
  /** The PostgreSQL connections' application_name, so a test can tell two instances apart. */
  applicationName?: string;
  takeoverReplayMs?: number;
  target?: EdgeTarget;
}

const defaultPollMs = 1_000;
const defaultTakeoverReplayMs = 30_000;

export function startEdgePurge(config: Readonly<Config>, overrides: EdgePurgeOverrides = {}): EdgePurge | null {
  if (config.content.store === 'newsroom-api') {
    if (config.edgePurge.distributionId !== null) {
      log.warn('edge purge is off: the newsroom API has no change feed to purge by; pages keep their short edge lifetimes');
    }
    return null;
  }
  const target = overrides.target ?? cloudFrontTarget(config.edgePurge);
  const budget = new PurgeBudget(config.edgePurge.monthlyPaths);
  const sender = new PurgeSender({
    invalidate: target.invalidate,
    intervalMs: config.edgePurge.intervalMs,
    maxBackoffMs: config.edgePurge.maxBackoffMs,
    budget,
  });
  log.info('edge purge', {
    mode: target.live ? 'live' : 'dry run',
    distribution: config.edgePurge.distributionId,
    longLifetimes: edgePurgeActive(config),
    intervalMs: config.edgePurge.intervalMs,
    monthlyPaths: budget.unlimited ? 'unlimited' : budget.monthlyPaths,
    burstPaths: budget.unlimited ? 'unlimited' : Math.floor(budget.burst),
  });
  const parts = config.content.store === 'sqlite' ? fromSqlite(config.content.path, sender) : fromPostgres(config, sender, overrides);
  return {
    get sending() {
      return parts.sending();
    },
    live: target.live,
    // A dry run sends nothing: no tags to count.
    get tagsSent() {
      return target.live ? sender.tagsSent : 0;
    },
    get failures() {
      return sender.failures;
    },
    lagS: () => (parts.sending() ? sender.lagS() : 0),
    budgetLeft: () => (parts.sending() ? sender.budgetLeft() : null),
    async close(withinMs) {
      if (parts.sending()) {
        await Promise.race([sender.flush(), new Promise((resolve) => setTimeout(resolve, withinMs).unref())]);
      }
      sender.close();
      await parts.close();
      target.close();
    },
  };
}

interface FeedParts {
  sending(): boolean;
  close(): Promise<void>;
}

function fromSqlite(path: string, sender: PurgeSender): FeedParts {
  const store = openSqliteStore(path, { readonly: true });
  const stop = store.changes.subscribe((change) => sender.change(change));
  return {
    sending: () => true,
    close() {
      stop();
      store.close();
      return Promise.resolve();
    },
  };
}

function fromPostgres(config: Readonly<Config>, sender: PurgeSender, overrides: EdgePurgeOverrides): FeedParts {
  if (config.content.store !== 'postgresql') throw new Error('not PostgreSQL');
  const url = config.content.url;
  const heldAtMostMs = config.edgePurge.monthlyPaths === 0 ? 0 : shortestPurgedLifetimeS * 1000 + config.edgePurge.intervalMs;
  const replayMs = overrides.takeoverReplayMs ?? Math.max(defaultTakeoverReplayMs, heldAtMostMs);
  let recent: { items: string[]; at: number; takingBack: boolean }[] = [];
  let leading = false;
  const heard = (change: ContentChange) => {
    const items = purgeItems(change);
    if (items.length === 0) return;
    const at = Date.now();
    const takingBack = takesBack(change);
    if (leading) sender.add(items, at, takingBack);
    else recent = [...recent.filter((entry) => entry.at > at - replayMs), { items, at, takingBack }];
  };
  // LISTEN says "everything" each time it is established, since notifications may have been
  // missed meanwhile: after a loss that is a purge of every path, but not at the first LISTEN of
  // this process, when this primary had missed nothing yet.
  let firstListen = true;
  let skipEverything = false;
  const listener = listenForChanges({
    url,
    timeoutMs: config.contentTimeoutMs,
    applicationName: overrides.applicationName === undefined ? 'kiosk-edge-listener' : `${overrides.applicationName}-listener`,
    onListening(now) {
      if (now && firstListen) {
        firstListen = false;
        skipEverything = true;
      }
    },
    onChange(change) {
      if (change.kind === 'everything' && skipEverything) {
        skipEverything = false;
        return;
      }
      heard(change);
    },
  });
  const leader = electPurgeSender({
    url,
    timeoutMs: config.contentTimeoutMs,
    pollMs: overrides.pollMs ?? defaultPollMs,
    applicationName: overrides.applicationName,
    onLeading(now) {
      leading = now;
      log.info(now ? 'edge purge: this instance sends the purges' : 'edge purge: standing by', {});
      if (now) {
        const cutoff = Date.now() - replayMs;
        for (const entry of recent) if (entry.at > cutoff) sender.add(entry.items, entry.at, entry.takingBack);
        recent = [];
      } else sender.discard();
    },
  });
  return {
    sending: () => leading,
    async close() {
      await Promise.all([leader.close(), listener.close()]);
    },
  };
}
