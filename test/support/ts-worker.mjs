// Bootstraps a worker thread that runs a TypeScript file: vitest transforms only its own workers,
// so threads started by a test load tsx themselves. workerData.script is the file URL to run.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.script);
