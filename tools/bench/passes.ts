// Every article id read once at one rate right after start-up, then once more at the same rate:
// a fresh worker has kept nothing, and a first read costs more than a kept one, so the cold
// first pass is measured apart from a warm one, and the capacity search after both measures a
// warm server. The generator's rotation carries on from where the start-up warm-up left it, so
// the first pass reads exactly the ids not read yet.
import type { StepRecord, StepTiming } from './measure';
import type { PassesRecord } from './results';

/** A rate a cold worker keeps up with (a quarter of what it renders in process), quicker for a smoke run. */
export function passPerS(renderPagePerS: number | undefined, quick: boolean): number {
  if (!renderPagePerS) return 300;
  return quick ? Math.max(300, Math.round(renderPagePerS / 2)) : Math.max(200, Math.round(renderPagePerS / 4));
}

export class IdPasses {
  /** The ids the start-up warm-up did not read. */
  readonly coldIds: number;

  constructor(
    readonly ids: number,
    readBefore: number,
    readonly ratePerS: number,
    private readonly base: StepTiming,
  ) {
    this.coldIds = Math.max(ratePerS, ids - readBefore);
  }

  /** A step that sends `requests` at the pass's rate, almost all of them in its window. */
  timing(requests: number): StepTiming {
    const seconds = requests / this.ratePerS;
    const warmupS = Math.min(0.2, seconds / 10);
    return { ...this.base, warmupS, durationS: Math.round((seconds - warmupS) * 100) / 100 };
  }

  async coldAndWarm(store: string, step: (label: string, ratePerS: number, timing: StepTiming) => Promise<StepRecord>): Promise<PassesRecord> {
    const cold = await step(`${store}: first pass over ${this.coldIds} cold ids`, this.ratePerS, this.timing(this.coldIds));
    const warm = await step(`${store}: a pass over all ${this.ids} ids, warm`, this.ratePerS, this.timing(this.ids));
    return { coldIds: this.coldIds, allIds: this.ids, cold, warm };
  }
}
