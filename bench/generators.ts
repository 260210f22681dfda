// In-process generators: SegmentGenerator and SnowflakeGenerator against a plain counter and
// @sapphire/snowflake, in ids/s, with the duplicates each one issued, all measured in this run.
// The database is embedded PGlite: it is off the hot path (a query per segment, a heartbeat per 3 s).
import { PGlite } from '@electric-sql/pglite';
import { Snowflake } from '@sapphire/snowflake';
import { defineLayout, install, layoutByName, pgliteExecutor, SegmentGenerator, SnowflakeGenerator } from '@sheaf/core';
import { type BenchSuite, markdownTable, rate, ratio, targetTable } from './suite.js';

const rounds = Number(process.env.SHEAF_BENCH_ROUNDS ?? 3);
/** Ids per event-loop turn: background segment fetches and heartbeats run in between. */
const chunk = 100_000;

type Ids = Float64Array | BigInt64Array;

interface Candidate {
  readonly name: string;
  readonly count: number;
  /** The layout's physical limit in ids/s (2^sequenceBits per ms), for time-based generators. */
  readonly limit?: number;
  readonly array: (length: number) => Ids;
  /** Fills out[from, to) with ids. */
  readonly fill: (out: Ids, from: number, to: number) => void | Promise<void>;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Fills a fresh array chunk by chunk; returns ids/s including the yields, and the ids. */
async function timed(candidate: Candidate): Promise<{ perSecond: number; ids: Ids }> {
  const ids = candidate.array(candidate.count);
  const started = performance.now();
  for (let from = 0; from < candidate.count; from += chunk) {
    await candidate.fill(ids, from, Math.min(candidate.count, from + chunk));
    await turn();
  }
  return { perSecond: (candidate.count * 1000) / (performance.now() - started), ids };
}

/** Ids equal to another id of the same run: 0 when strictly increasing, else counted after sorting. */
function duplicates(ids: Ids): number {
  let increasing = true;
  for (let i = 1; i < ids.length && increasing; i++) increasing = ids[i]! > ids[i - 1]!;
  if (increasing) return 0;
  const sorted = ids.slice().sort();
  let count = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) count++;
  return count;
}

const perMs = (preset: string) => (layoutByName(preset).maxSequence + 1) * 1000;

async function candidates(): Promise<{ list: Candidate[]; close: () => Promise<void> }> {
  const executor = pgliteExecutor(await PGlite.create());
  await install(executor);
  await executor.query("select sheaf.create_segment('bench', 10000)");
  const segment = await new SegmentGenerator(executor, { bizTag: 'bench', maxStep: 2 ** 31 - 1 }).start();
  const segmentAsync = await new SegmentGenerator(executor, { bizTag: 'bench' }).start();
  // 20 sequence bits: a limit of 2^20 ids per ms that the code cannot reach, so this row shows its cost per id.
  const wide = defineLayout({ name: 'wide', epoch: '2024-01-01', timeBits: 41, shardBits: 2, sequenceBits: 20 });
  const unbounded = await SnowflakeGenerator.start(executor, { layout: wide });
  const sheaf = await SnowflakeGenerator.start(executor, { layout: 'sheaf' });
  const twitter = await SnowflakeGenerator.start(executor, { layout: 'twitter' });
  const js53 = await SnowflakeGenerator.start(executor, { layout: 'js53', ids: 'number' });
  const sapphire = new Snowflake(layoutByName('twitter').epoch);
  let counter = 0;
  const numbers = (length: number) => new Float64Array(length);
  const bigints = (length: number) => new BigInt64Array(length);
  const list: Candidate[] = [
    {
      name: 'plain counter (`++n`)',
      count: 20_000_000,
      array: numbers,
      fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = ++counter;
      },
    },
    {
      name: 'SegmentGenerator `nextSync()` (Number)',
      count: 20_000_000,
      array: numbers,
      async fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = segment.nextSync() ?? (await segment.next());
      },
    },
    {
      name: 'SegmentGenerator `await next()` (Number)',
      count: 2_000_000,
      array: numbers,
      async fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = await segmentAsync.next();
      },
    },
    {
      name: '@sapphire/snowflake `generate()` (12 sequence bits)',
      count: 4_000_000,
      array: bigints,
      fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = sapphire.generate();
      },
    },
    {
      name: 'SnowflakeGenerator `next()`, layout twitter (12 sequence bits)',
      count: 4_000_000,
      limit: perMs('twitter'),
      array: bigints,
      fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = twitter.next();
      },
    },
    {
      name: 'SnowflakeGenerator `next()`, 20 sequence bits (code speed)',
      count: 4_000_000,
      limit: (wide.maxSequence + 1) * 1000,
      array: bigints,
      fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = unbounded.next();
      },
    },
    {
      name: 'SnowflakeGenerator `next()`, layout sheaf (10 sequence bits)',
      count: 2_000_000,
      limit: perMs('sheaf'),
      array: bigints,
      fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = sheaf.next();
      },
    },
    {
      name: 'SnowflakeGenerator `next()`, layout js53, Number (8 sequence bits)',
      count: 500_000,
      limit: perMs('js53'),
      array: numbers,
      fill(out, from, to) {
        for (let i = from; i < to; i++) out[i] = js53.next();
      },
    },
  ];
  const close = async () => {
    for (const generator of [segment, segmentAsync, unbounded, sheaf, twitter, js53]) await generator.close();
  };
  return { list, close };
}

const suite: BenchSuite = {
  name: 'in-process generators',
  async run() {
    const { list, close } = await candidates();
    const results = [];
    for (const candidate of list) {
      let best = 0;
      let dups = 0;
      for (let round = 0; round < rounds; round++) {
        const { perSecond, ids } = await timed(candidate);
        best = Math.max(best, perSecond);
        dups += duplicates(ids);
      }
      results.push({ candidate, best, dups });
    }
    await close();
    const counter = results[0]!.best;
    const sapphire = results.find((result) => result.candidate.name.startsWith('@sapphire'))!.best;
    const rows = results.map(({ candidate, best, dups }) => [
      candidate.name,
      rate(best),
      rate(best * (1 - dups / (candidate.count * rounds))),
      ratio(best, counter),
      ratio(best, sapphire),
      candidate.limit === undefined ? '—' : `${rate(candidate.limit)} (${ratio(best, candidate.limit)})`,
      rate(dups),
    ]);
    const segment = results.find((result) => result.candidate.name.includes('nextSync()'))!;
    const snowflakes = results.filter(
      (result) => result.candidate.name.includes('layout') && result.candidate.limit !== undefined,
    );
    const checks = [
      {
        target: 'SegmentGenerator ≥ 50M ids/s (Number mode)',
        measured: `${rate(segment.best)} ids/s`,
        met: segment.best >= 50e6 && segment.dups === 0,
      },
      ...snowflakes.map(({ candidate, best, dups }) => ({
        target: `${candidate.name}: ≥ 95 % of the physical limit, no duplicate`,
        measured: `${ratio(best, candidate.limit!)}, ${dups} duplicates`,
        met: best >= 0.95 * candidate.limit! && dups === 0,
      })),
    ];
    return [
      `### In-process generators (best of ${rounds}; duplicates summed over all rounds)`,
      targetTable(checks),
      markdownTable(
        [
          'generator',
          'ids/s',
          'distinct ids/s',
          'vs counter',
          'vs @sapphire/snowflake',
          'physical limit (share)',
          'duplicates',
        ],
        rows,
      ),
      'A snowflake above its physical limit (2^sequenceBits ids per ms per worker) is issuing duplicates: ' +
        '@sapphire/snowflake wraps its 12-bit increment without waiting for the next millisecond.',
    ].join('\n\n');
  },
};

export default suite;
