import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI can read
 * whatever the runner's own formatting. Errors raised outside any test (an unhandled rejection, an
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
    const n = unhandledErrors.length;
    const errors = n ? `, ${n} unhandled error${n === 1 ? '' : 's'}` : '';
    process.stdout.write(
      `\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${errors}\n`,
    );
  }
}
