import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the summary lists: where to look first when the suite grows. */
const slowestShown = 10;

/**
 * Ends the run with the slowest test files and one plain line, `Tests: N passed, N failed, N
 * skipped`, that any CI can read whatever the runner's own formatting. Errors raised outside any test (an unhandled rejection, an
 * 'error' event nobody listened to) fail the run without failing a test, so they are counted on
 * that line and repeated in full right above it, where a log cut to its tail still shows them.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no tests to count, but it is a failure all the same.
      if (testModule.state() === 'failed' && !testModule.children.size) counts.failed++;
    }
    for (const error of unhandledErrors) {
      process.stdout.write(`\nUnhandled error: ${error.name ?? 'Error'}: ${error.message}\n${error.stack ?? ''}\n`);
    }
    process.stdout.write(slowestFiles(testModules));
    const n = unhandledErrors.length;
    const errors = n ? `, ${n} unhandled error${n === 1 ? '' : 's'}` : '';
    process.stdout.write(
      `\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${errors}\n`,
    );
  }
}

/** The files that took longest (collecting, hooks and tests; two run at once, so they overlap). */
function slowestFiles(testModules: ReadonlyArray<TestModule>): string {
  const timed = testModules
    .map((testModule) => {
      const { collectDuration, duration } = testModule.diagnostic();
      return { file: testModule.relativeModuleId, seconds: (collectDuration + duration) / 1000 };
    })
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, slowestShown);
  if (timed.length < 2) return '';
  const lines = timed.map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(7)} s  ${file}`);
  return `\nSlowest ${timed.length} test files:\n${lines.join('\n')}\n`;
}
