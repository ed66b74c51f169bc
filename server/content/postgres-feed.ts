import { ChangeHub, everythingChanged, type ArticleChange, type ArticleState, type ContentChange } from './changes';
import { listenForChanges } from './postgres-listener';

// PostgreSQL's change feed, entered from one place, arrive(). The rule: every commit is told to
// this worker's subscribers (the content cache) once.
// - Another writer's commit (a worker of any instance, an operator's psql): by the NOTIFY the
//   articles triggers send, heard by the LISTEN connection within moments, in commit order.
// - A write of this store's own (a CMS push this worker took): told when the write has
//   committed, so the worker that took the push shows it at once. Before its COMMIT the write
//   says which change it commits (own()), and the first NOTIFY of that same change is its echo,
//   not told again. PostgreSQL delivers notifications in commit order, so no later commit's
//   NOTIFY can be taken for it; an earlier commit's of the same change needs no telling either,
//   since the own write is told after both.
// - What cannot be told change by change is "everything": when LISTEN is (re)established (what
//   was missed meanwhile is unknown, and echoes still awaited are forgotten), and every
//   unlistenedFreshMs while LISTEN is not in force (kept answers are then at most that much
//   older than a change made meanwhile).
// - A bulk write of this store's own (the seed's, a test's deleteAll) is "everything" when it
//   commits; its NOTIFYs are told as they come (a tool's, rare: no echo is awaited for them).

export interface FeedOptions {
  url: string;
  timeoutMs: number;
  unlistenedFreshMs: number;
  listen?: boolean;
  listenerHeartbeatMs?: number;
  listenerName?: string;
}

/** One of this store's writes, as postgres-writes.ts tells it: `expect` names the change before COMMIT. */
export type OwnWrite = <T>(write: (expect: (change: ArticleChange) => void) => Promise<T>) => Promise<T>;

export interface PostgresFeed {
  readonly hub: ChangeHub;
  own: OwnWrite;
  /** A bulk write committed: everything. */
  bulk(): void;
  listening(): boolean;
  close(): Promise<void>;
}

function stateText(state: ArticleState | null): string {
  return state === null ? '-' : `${state.section} ${state.status} ${state.tags.join(',')}`;
}

/** What tells a change from another: the article, and what it was and is. */
function signature(change: ArticleChange): string {
  return `${change.id}|${stateText(change.now)}|${stateText(change.was)}`;
}

export function postgresFeed(options: FeedOptions): PostgresFeed {
  const hub = new ChangeHub();
  /** Own changes committed or about to be, whose NOTIFY has not come yet: a few at most. */
  let echoes: string[] = [];
  const consume = (change: ArticleChange): boolean => {
    const at = echoes.indexOf(signature(change));
    if (at >= 0) echoes.splice(at, 1);
    return at >= 0;
  };
  const arrive = (change: ContentChange, from: 'notify' | 'own' | 'store'): void => {
    if (from === 'notify' && change.kind === 'article' && consume(change)) return;
    hub.emit(change);
  };
  const listener =
    options.listen === false
      ? null
      : listenForChanges({
          url: options.url,
          timeoutMs: options.timeoutMs,
          heartbeatMs: options.listenerHeartbeatMs,
          applicationName: options.listenerName,
          onChange: (change) => arrive(change, 'notify'),
          // Lost or back: an echo awaited may never come (a duplicate told later is harmless).
          onListening: () => {
            echoes = [];
          },
        });
  const unlistenedTimer =
    listener === null ? undefined : setInterval(() => (listener.listening ? undefined : arrive(everythingChanged, 'store')), options.unlistenedFreshMs);
  unlistenedTimer?.unref();
  const own: OwnWrite = async (write) => {
    const named: { change?: ArticleChange } = {};
    const expect = (change: ArticleChange) => {
      named.change = change;
      // Without a listener no echo comes.
      if (listener !== null) echoes.push(signature(change));
    };
    try {
      const result = await write(expect);
      if (named.change) arrive(named.change, 'own');
      return result;
    } catch (error) {
      // Its echo came, so it did commit (the answer to COMMIT was lost); or it cannot be known (no listener): tell it.
      if (named.change && !consume(named.change)) arrive(named.change, 'own');
      throw error;
    }
  };
  return {
    hub,
    own,
    bulk: () => arrive(everythingChanged, 'store'),
    listening: () => listener?.listening ?? false,
    async close(): Promise<void> {
      clearInterval(unlistenedTimer);
      await listener?.close();
    },
  };
}
