import { performance } from 'node:perf_hooks';

/**
 * How long one turn of the event loop may spend rendering: well under the 50 ms an operator
 * counts as a stall, and long enough that the extra turns cost nothing measurable (at most a
 * hundred a second).
 */
export const turnBudgetMs = 10;

/**
 * One worker's clock for the turn of the event loop it is in. Renders come in bursts that all run
 * in one turn: the requests of one read take their turns in the same check phase (the guard,
 * server/overload.ts), and the requests waiting on one store read all go on in the same microtask
 * drain when it answers (a list a push dropped, read again from PostgreSQL while hundreds of
 * pages wait for it). At a few hundred µs a render, either held timers and new connections for
 * tens or hundreds of ms. Each render asks `spent()` first; past the budget it waits a turn
 * (`ready()`), behind the ones already waiting, so the order is kept.
 */
export class TurnBudget {
  #startedAt = -1;
  readonly #turnOver = () => {
    this.#startedAt = -1;
  };

  constructor(readonly budgetMs = turnBudgetMs) {}

  /** Whether this turn has spent its budget. The first ask of a turn starts its clock. */
  spent(): boolean {
    const now = performance.now();
    if (this.#startedAt < 0) {
      this.#startedAt = now;
      // Queued before anything this turn puts off, so the next turn starts afresh.
      setImmediate(this.#turnOver);
      return false;
    }
    return now - this.#startedAt > this.budgetMs;
  }

  /** Resolves once a turn has budget left: at once when this one has. */
  async ready(): Promise<void> {
    while (this.spent()) await nextTurn();
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
