import type { SqlExecutor } from '@sheaf/core';
import type { InstalledState } from '../installed-state.js';
import type { ProbeSql } from './probe-sql.js';

/** The generator's newest millisecond against the server clock, at one instant. */
export interface GeneratorSample {
  /** Unix ms of the last id's millisecond; undefined before the first id. */
  readonly lastIdMs: number | undefined;
  readonly serverMs: number;
}

/** Two samples `windowMs` apart: how far the generator moved against the clock in between. */
export interface GeneratorWindow {
  readonly first: GeneratorSample;
  readonly second: GeneratorSample;
}

/** How long the doctor watches the generator. */
export const windowMs = 200;

/** Samples the generator's state twice, `windowMs` apart. */
export async function sampleGenerator(
  executor: SqlExecutor,
  sql: ProbeSql,
  state: InstalledState,
): Promise<GeneratorWindow> {
  const first = await sampleOnce(executor, sql, state);
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  return { first, second: await sampleOnce(executor, sql, state) };
}

async function sampleOnce(executor: SqlExecutor, sql: ProbeSql, state: InstalledState): Promise<GeneratorSample> {
  const [row] = await executor.query<{ last: unknown; issued: unknown; now_ms: unknown }>(sql.generator);
  const issued = row?.issued === true || Number(row?.issued) === 1 || row?.issued === 't';
  const tick = issued ? sql.tickOf(BigInt(String(row?.last)), state.layout) : undefined;
  return {
    lastIdMs: tick === undefined ? undefined : state.layout.epoch + Number(tick),
    serverMs: Number(row?.now_ms),
  };
}
