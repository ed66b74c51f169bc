import cluster, { type Worker } from 'node:cluster';

// In per-worker mode each worker owns PORT + slot, and Nginx's upstream lists exactly those
// ports. throng forks a replacement with a new cluster id, so the id cannot be the slot: the
// primary hands out the lowest free slot, and a replacement inherits the port of the worker
// it replaces.

interface SlotRequest {
  kiosk: 'slot?';
}
interface SlotAnswer {
  kiosk: 'slot';
  slot: number;
}

/** Pure bookkeeping: which cluster worker holds which slot. */
export class SlotTable {
  readonly #holders = new Map<number, number>();

  constructor(readonly size: number) {}

  /** The slot a worker holds, or the lowest free one; null when all are taken. */
  claim(workerId: number): number | null {
    for (const [slot, holder] of this.#holders) if (holder === workerId) return slot;
    for (let slot = 0; slot < this.size; slot++) {
      if (!this.#holders.has(slot)) {
        this.#holders.set(slot, workerId);
        return slot;
      }
    }
    return null;
  }

  release(workerId: number): void {
    for (const [slot, holder] of this.#holders) if (holder === workerId) this.#holders.delete(slot);
  }
}

function isSlotRequest(message: unknown): message is SlotRequest {
  return typeof message === 'object' && message !== null && (message as SlotRequest).kiosk === 'slot?';
}

function isSlotAnswer(message: unknown): message is SlotAnswer {
  return typeof message === 'object' && message !== null && (message as SlotAnswer).kiosk === 'slot' && Number.isInteger((message as SlotAnswer).slot);
}

/** Primary side: answers workers' slot requests; a slot frees as soon as its worker disconnects. */
export function serveSlots(size: number, onRefused: (worker: Worker) => void): void {
  const table = new SlotTable(size);
  cluster.on('message', (worker, message) => {
    if (!isSlotRequest(message)) return;
    const slot = table.claim(worker.id);
    if (slot === null) {
      onRefused(worker);
      return;
    }
    const answer: SlotAnswer = { kiosk: 'slot', slot };
    worker.send(answer);
  });
  // throng forks the replacement on 'disconnect', before 'exit': free the slot by then.
  cluster.on('disconnect', (worker) => table.release(worker.id));
  cluster.on('exit', (worker) => table.release(worker.id));
}

/** Worker side: asks the primary for a slot. */
export function requestSlot(timeoutMs = 10_000): Promise<number> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('per-worker ports need the cluster primary to assign slots'));
      return;
    }
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error(`no port slot from the primary within ${timeoutMs} ms`));
    }, timeoutMs);
    function onMessage(message: unknown) {
      if (!isSlotAnswer(message)) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(message.slot);
    }
    process.on('message', onMessage);
    const request: SlotRequest = { kiosk: 'slot?' };
    process.send(request);
  });
}
