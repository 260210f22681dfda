// Watches the machine for the whole `npm run bench`: waits for a quiet start, then keeps a worker
// thread sampling other work, so that every suite's Targets table can say whether it may judge.
import { loadavg } from 'node:os';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { mysqlUrl as mysql, pgUrl as postgres } from '../test/support/targets.js';
import { foreignPeak, judgeLoad, type LoadSample, type LoadVerdict, loadLimits } from './machine-load.js';
import type { WorkerInput } from './machine-worker.js';

/** The load when the bench started measuring, after any wait. */
export interface QuietStart {
  readonly loadBefore: number;
  readonly waitedSeconds: number;
}

/**
 * Waits, up to `waitSeconds` (SHEAF_BENCH_WAIT_SECONDS, default 120), for the 1-minute load average
 * to fall below its limit, saying so on stderr; returns the load it then starts at, limit or not.
 */
export async function waitForQuiet(
  waitSeconds = Number(process.env.SHEAF_BENCH_WAIT_SECONDS ?? loadLimits.waitSeconds),
): Promise<QuietStart> {
  const started = Date.now();
  const waited = () => (Date.now() - started) / 1000;
  let load = loadavg()[0]!;
  if (load >= loadLimits.loadBefore && waitSeconds > 0) {
    console.error(`1-minute load average ${load.toFixed(2)}: waiting up to ${waitSeconds} s for it to fall below 1…`);
  }
  while (load >= loadLimits.loadBefore && waited() < waitSeconds) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(5000, (waitSeconds - waited()) * 1000)));
    load = loadavg()[0]!;
  }
  if (load >= loadLimits.loadBefore) console.error(`still ${load.toFixed(2)}: the Targets tables will not judge`);
  return { loadBefore: load, waitedSeconds: waited() };
}

interface Watch {
  readonly start: QuietStart;
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly samples: LoadSample[];
  suiteStart: number;
  error?: string;
}

let watch: Watch | undefined;

/** Starts sampling (machine-worker.ts); the suites' targetTable() calls read it through machineVerdict(). */
export function startWatch(start: QuietStart): void {
  const { port1, port2 } = new MessageChannel();
  const workerData: WorkerInput = { port: port2, urls: { postgres, mysql }, sampleMs: loadLimits.sampleMs };
  // A worker does not inherit the TypeScript loader of `node --import tsx`: it registers it first.
  const loader = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const file = JSON.stringify(new URL('./machine-worker.ts', import.meta.url).href);
  const script = `import(${loader}).then((tsx) => { tsx.register(); return import(${file}); })`;
  const worker = new Worker(script, { eval: true, workerData, transferList: [port2] });
  worker.unref();
  port1.unref();
  const current: Watch = { start, worker, port: port1, samples: [], suiteStart: Date.now() };
  worker.on('error', (error) => {
    current.error = error.message;
  });
  watch = current;
}

/** Judges only what follows: each suite is judged on the samples taken while it ran. */
export function beginSuite(): void {
  if (watch) watch.suiteStart = Date.now();
}

/** Whether the suite running now may judge its targets, from the samples taken so far. */
export function machineVerdict(): LoadVerdict {
  if (!watch) {
    return judgeLoad({
      loadBefore: loadavg()[0]!,
      waitedSeconds: 0,
      peak: { mean: 0, by: [], samples: 0 },
      unwatched: 'the bench did not start a watch',
    });
  }
  for (let message = receiveMessageOnPort(watch.port); message; message = receiveMessageOnPort(watch.port)) {
    const data = message.message as LoadSample | { error: string };
    if ('error' in data) watch.error = data.error;
    else watch.samples.push(data);
  }
  const since = watch.samples.filter((sample) => sample.at >= (watch?.suiteStart ?? 0));
  const peak = foreignPeak(since, loadLimits.windowSeconds * 1000, loadLimits.sampleMs);
  const unwatched = watch.error ?? (since.length === 0 ? 'no sample was taken' : undefined);
  return judgeLoad({ ...watch.start, peak, ...(unwatched ? { unwatched } : {}) });
}

/** Stops the worker and closes its connections. */
export async function stopWatch(): Promise<void> {
  if (!watch) return;
  watch.port.postMessage('stop');
  const exited = new Promise((resolve) => watch?.worker.once('exit', resolve));
  // Not unref'd: the worker and its port are, so this timer keeps the process alive until one settles
  // (an unref'd one let the top-level await end unsettled, exit code 13).
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 3000)))]);
  clearTimeout(timer);
  await watch.worker.terminate();
  watch = undefined;
}
