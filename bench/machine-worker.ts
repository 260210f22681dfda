// The worker thread that samples the machine once a second, so that sampling goes on while the
// bench's main thread waits in spawnSync (pgbench) or runs a generator in a tight loop.
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessagePort, workerData } from 'node:worker_threads';
import { MachineSampler, type ServerUrls } from './machine-sampler.js';

/** What machine-watch.ts hands the worker. */
export interface WorkerInput {
  readonly port: MessagePort;
  readonly urls: ServerUrls;
  readonly sampleMs: number;
}

const { port, urls, sampleMs } = workerData as WorkerInput;
const sampler = new MachineSampler(urls);
let stopped = false;
port.on('message', () => {
  stopped = true;
});
try {
  while (!stopped) {
    const started = Date.now();
    port.postMessage(await sampler.sample());
    await sleep(Math.max(0, sampleMs - (Date.now() - started)));
  }
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
} finally {
  await sampler.close();
  port.close();
}
