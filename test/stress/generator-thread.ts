// One generator in a worker thread: takes `count` ids and posts them back in a transferred buffer.
import { parentPort, workerData } from 'node:worker_threads';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  mysql2Executor,
  pgExecutor,
  SegmentGenerator,
  SnowflakeGenerator,
  type SqlExecutor,
} from '../../packages/core/src/index.js';

export interface ThreadTask {
  script: string;
  kind: 'segment' | 'snowflake';
  url: string;
  count: number;
  bizTag: string;
}

export interface ThreadResult {
  ids: ArrayBuffer;
  workerId: number | undefined;
  increasing: boolean;
}

const task = workerData as ThreadTask;
// Each thread has a pool of its own, as separate processes would.
const { executor, end } = connect(task.url);
let result: ThreadResult;
// Generators stay open until every thread is done, as long-lived processes would: a thread that
// finished early must not hand its worker id to one that starts late.
const closed = new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));
if (task.kind === 'snowflake') {
  const generator = await SnowflakeGenerator.start(executor);
  const ids = new BigInt64Array(task.count);
  for (let i = 0; i < task.count; i++) ids[i] = generator.next();
  result = { ids: ids.buffer, workerId: generator.workerId, increasing: isIncreasing(ids) };
  parentPort!.postMessage(result, [result.ids]);
  await closed;
  await generator.close();
} else {
  const generator = new SegmentGenerator(executor, { bizTag: task.bizTag });
  const ids = new Float64Array(task.count);
  for (let i = 0; i < task.count; i++) ids[i] = generator.nextSync() ?? (await generator.next());
  result = { ids: ids.buffer, workerId: undefined, increasing: isIncreasing(ids) };
  parentPort!.postMessage(result, [result.ids]);
  await closed;
  await generator.close();
}
await end();

function connect(url: string): { executor: SqlExecutor; end(): Promise<void> } {
  if (url.startsWith('mysql:')) {
    const pool = mysql.createPool({ uri: url, connectionLimit: 2 });
    return { executor: mysql2Executor(pool), end: () => pool.end() };
  }
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return { executor: pgExecutor(pool), end: () => pool.end() };
}

function isIncreasing(ids: BigInt64Array | Float64Array): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return true;
}
