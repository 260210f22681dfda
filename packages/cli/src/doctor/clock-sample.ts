import type { SqlExecutor } from '@sheaf/core';

/** The server clock against this host's: `skewMs` positive when the server is ahead. */
export interface ClockSample {
  readonly skewMs: number;
  /** Half the round trip of the best sample, plus a millisecond for the server's resolution. */
  readonly uncertaintyMs: number;
  readonly rttMs: number;
}

const rounds = 5;

/**
 * Reads the server clock a few times and keeps the fastest round trip (as NTP does): the server
 * read its clock somewhere inside the round trip, so its midpoint is the best guess and half of it
 * the error bound. The first round also warms the connection up.
 */
export async function sampleClock(executor: SqlExecutor, nowSql: string): Promise<ClockSample> {
  let best: ClockSample | undefined;
  for (let round = 0; round < rounds; round++) {
    const sent = hostNow();
    const [row] = await executor.query<{ now_ms: unknown }>(nowSql);
    const received = hostNow();
    const rttMs = received - sent;
    const sample = { skewMs: Number(row?.now_ms) - (sent + received) / 2, uncertaintyMs: rttMs / 2 + 1, rttMs };
    if (best === undefined || sample.rttMs < best.rttMs) best = sample;
  }
  return best!;
}

// Sub-millisecond wall time: Date.now() alone would add its own millisecond of rounding.
function hostNow(): number {
  return performance.timeOrigin + performance.now();
}
