// A node:test reporter that writes one JSON object: each test file's seconds, the sum of its
// top-level tests' durations. scripts/run-tests.ts --record-timings runs it beside the spec
// reporter and keeps the result in scripts/test-timings.json, from which it orders the files.
export default async function* testTimings(source) {
  const seconds = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || typeof file !== 'string') continue;
    seconds[file] = (seconds[file] ?? 0) + (details?.duration_ms ?? 0) / 1000;
  }
  yield `${JSON.stringify(seconds)}\n`;
}
