import { sleep } from './test-clock.js';

/**
 * Polls the asynchronous `check` every 100 ms until it answers true (replication catching up, a
 * subscription starting); fails after `timeoutMs`, naming `what`.
 */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
