// Waiting in tests for something to happen, never for a clock to say it happened fast enough.
// The suite runs on a shared two-core machine beside other suites: a step that takes 30 ms on an
// idle one can take seconds there. So a test waits for the event itself, and the ceiling is only
// there to turn "never" into a failure: far above any honest wait, and far below the point where
// the behaviour under test could have produced the event some other way.

/** How long a test waits for something that should happen soon: seconds on a busy machine, never a minute. */
export const generousCeilingMs = 30_000;

/**
 * Resolves once `check` returns true, polling every `everyMs`; rejects naming `what` if it has
 * not within `ceilingMs`. Returns nothing: how long it took is not the test's to assert.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, options: { ceilingMs?: number; everyMs?: number } = {}): Promise<void> {
  const { ceilingMs = generousCeilingMs, everyMs = 50 } = options;
  const deadline = performance.now() + ceilingMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ceilingMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls `read` until `done` accepts its value, and returns that value; rejects with the last value seen after `ceilingMs`. */
export async function waitForValue<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: { ceilingMs?: number; everyMs?: number } = {},
): Promise<T> {
  const { ceilingMs = generousCeilingMs, everyMs = 250 } = options;
  const deadline = performance.now() + ceilingMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ceilingMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `promise`, or a rejection naming `what` if it has not settled within `ceilingMs`. */
export async function withCeiling<T>(what: string, promise: Promise<T>, ceilingMs = generousCeilingMs): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ceilingMs} ms`)), ceilingMs);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
