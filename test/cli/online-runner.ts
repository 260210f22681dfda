// Runs `sheaf migrate --all --online` in a process of its own with a batch size and a pause between
// batches, which the command does not take as flags yet: the interruption test kills this process
// mid-backfill. Usage: node --import tsx test/cli/online-runner.ts <postgres-url> <batch-size> <pause-ms>
import { pgExecutor } from '@sheaf/core';
import pg from 'pg';
import { processIo } from '../../packages/cli/src/io.js';
import { inspectPostgres } from '../../packages/migrate/src/inspect/inspect-postgres.js';
import { runOnline } from '../../packages/migrate/src/online/online-postgres.js';

const [url, batchSize, pauseMs] = process.argv.slice(2);
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const executor = pgExecutor(client);
  const inspection = await inspectPostgres(executor, { all: true });
  await runOnline(executor, inspection, processIo, {
    batchSize: Number(batchSize),
    pauseMs: Number(pauseMs),
    interactive: false,
  });
} finally {
  await client.end();
}
