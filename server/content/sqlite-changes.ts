import type Database from 'better-sqlite3';
import { describeError, log } from '../log';
import { ChangeHub, everythingChanged, stateOf, type ChangeFeed, type ChangeListener, type ContentChange } from './changes';

// SQLite's change feed: the change log the articles triggers write (sqlite.ts), read by one
// connection. Another connection's commit moves data_version; this connection's own commits do
// not. Every way in (a read's poll, the timer, this connection's own write) goes through
// catchUp(), the one place the log is read and changes are told.

/** Changes kept in the log; a reader that misses more than this between two looks starts afresh. */
export const changeLogRows = 1_000;
/** How often a reader with subscribers looks at the log when no read asks it to (visibility within 1 s). */
const changeLogPollMs = 250;

interface ChangeRow {
  seq: number;
  article_id: string;
  section: string | null;
  tags: string | null;
  status: string | null;
  was_section: string | null;
  was_tags: string | null;
  was_status: string | null;
}

/** A row whose columns cannot be read (an operator's hand-made one) cannot be placed: everything. */
function changeOf(row: ChangeRow): ContentChange {
  try {
    return {
      kind: 'article',
      id: row.article_id,
      now: stateOf(row.section, row.tags, row.status),
      was: stateOf(row.was_section, row.was_tags, row.was_status),
    };
  } catch {
    return everythingChanged;
  }
}

/**
 * The change feed of one connection: data_version is read at most once per turn of the event
 * loop (every read polls, so the first read after a commit sees it) and, while anyone
 * subscribes, every changeLogPollMs; this connection's own writes read the log at once.
 */
export class SqliteChangeFeed implements ChangeFeed {
  readonly #dataVersion: Database.Statement<[], number>;
  readonly #lastSeq: Database.Statement<[], number>;
  readonly #since: Database.Statement<[number, number], ChangeRow>;
  readonly #hub: ChangeHub;
  #seenVersion: number | undefined;
  #seenSeq: number;
  #lookedThisTurn = false;
  #failing = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Database.Database) {
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#lastSeq = db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'article_changes'").pluck();
    this.#since = db.prepare<[number, number], ChangeRow>(
      'SELECT seq, article_id, section, tags, status, was_section, was_tags, was_status FROM article_changes WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    this.#seenVersion = this.#dataVersion.get();
    this.#seenSeq = this.#lastSeq.get() ?? 0;
    this.#hub = new ChangeHub(() => this.#pollOncePerTurn());
  }

  subscribe(listener: ChangeListener): () => void {
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#catchUp(false), changeLogPollMs);
      this.#timer.unref();
    }
    return this.#hub.subscribe(listener);
  }

  poll(): void {
    this.#hub.poll();
  }

  /** Passes a write's result through, after telling subscribers what it changed. */
  afterOwnWrite<T>(result: T): T {
    this.#catchUp(true);
    return result;
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #pollOncePerTurn(): void {
    if (this.#lookedThisTurn) return;
    this.#lookedThisTurn = true;
    setImmediate(() => (this.#lookedThisTurn = false));
    this.#catchUp(false);
  }

  /**
   * The one way in: reads the log past what was seen when another connection committed (or,
   * `own`, this one did), and tells subscribers. A log that cannot be read must not fail the
   * read that asked: it is read again next time.
   */
  #catchUp(own: boolean): void {
    try {
      if (own) this.#readLog();
      else {
        const version = this.#dataVersion.get();
        if (version !== this.#seenVersion) {
          this.#readLog();
          // Only once read: a log that failed to read is read again at the next look.
          this.#seenVersion = version;
        }
      }
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) log.warn('the content change log could not be read', describeError(error));
      this.#failing = true;
    }
  }

  #readLog(): void {
    const rows = this.#since.all(this.#seenSeq, changeLogRows + 1);
    if (rows.length === 0) return;
    // A gap means the writers pruned changes this reader never saw.
    const missed = rows[0]!.seq !== this.#seenSeq + 1 || rows.length > changeLogRows;
    this.#seenSeq = missed ? (this.#lastSeq.get() ?? rows.at(-1)!.seq) : rows.at(-1)!.seq;
    if (missed) {
      this.#hub.emit(everythingChanged);
      return;
    }
    for (const row of rows) this.#hub.emit(changeOf(row));
  }
}
