import { Worker } from 'node:worker_threads';
import { install } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { createSegment } from '../support/generator-sql.js';
import type { ThreadResult, ThreadTask } from './generator-thread.js';

const threads = 8;
const perThread = 500_000;

/** Runs `threads` generator threads; each keeps its generator open until all have answered. */
async function runAll(task: Omit<ThreadTask, 'script'>): Promise<ThreadResult[]> {
  const script = new URL('./generator-thread.ts', import.meta.url).href;
  const workers = Array.from(
    { length: threads },
    () => new Worker(new URL('../support/ts-worker.mjs', import.meta.url), { workerData: { ...task, script } }),
  );
  const exited = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
  try {
    return await Promise.all(
      workers.map(
        (worker) =>
          new Promise<ThreadResult>((resolve, reject) => {
            worker.once('message', (result: ThreadResult) => resolve(result));
            worker.once('error', reject);
            worker.once('exit', (code) => reject(new Error(`generator thread exited with ${code} before answering`)));
          }),
      ),
    );
  } finally {
    for (const worker of workers) worker.postMessage('close');
    await Promise.all(exited);
  }
}

/** Sorts all ids together and counts the ones equal to their predecessor. */
function duplicates<T extends BigInt64Array | Float64Array>(parts: T[], make: (length: number) => T): number {
  const all = make(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part as never, offset);
    offset += part.length;
  }
  all.sort();
  let count = 0;
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) count++;
  return count;
}

// 8 generators in 8 threads of their own, each with its own connection pool, against one database.
describeTargets(
  'generators in 8 threads × 500k ids',
  (db) => {
    beforeAll(async () => {
      await install(db().executor);
      await createSegment(db().executor, 'shared', 1000);
    });

    it('SnowflakeGenerator: each thread leases its own worker id; no duplicate among 4M ids', async () => {
      const url = db().url!;
      const results = await runAll({ kind: 'snowflake', url, count: perThread, bizTag: '' });
      expect(new Set(results.map((result) => result.workerId)).size).toBe(threads);
      expect(results.every((result) => result.increasing)).toBe(true);
      const parts = results.map((result) => new BigInt64Array(result.ids));
      expect(duplicates(parts, (length) => new BigInt64Array(length))).toBe(0);
    }, 60_000);

    it('SegmentGenerator: all threads share one biz_tag; no duplicate among 4M ids', async () => {
      const url = db().url!;
      const results = await runAll({ kind: 'segment', url, count: perThread, bizTag: 'shared' });
      expect(results.every((result) => result.increasing)).toBe(true);
      const parts = results.map((result) => new Float64Array(result.ids));
      expect(duplicates(parts, (length) => new Float64Array(length))).toBe(0);
    }, 60_000);
  },
  { only: ['postgres', 'mariadb'] },
);
