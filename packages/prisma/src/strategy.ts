import { SheafError } from '@sheaf/core';
import type { SheafModelInfo } from './model-map.js';

/** A generator the extension awaits: `SegmentGenerator`, `BatchedDbIds`, `SnowflakeGenerator`, `TicketClient`. */
export interface PrismaIdSource {
  next(): bigint | number | Promise<bigint | number>;
}

/**
 * How one model gets its ids. `db`: the database assigns them (`@default(dbgenerated("sheaf.next_id()"))`
 * on PostgreSQL, the sheaf trigger on MySQL) and the extension leaves the model alone. The others
 * assign an id from `generator` to every create that has none: `snowflake` (`SnowflakeGenerator`),
 * `segment` (`SegmentGenerator`), `batch` (`BatchedDbIds`).
 *
 * @example
 * const order: ModelStrategy = { strategy: 'segment', generator: await new SegmentGenerator(executor, { bizTag: 'orders' }).start() };
 */
export type ModelStrategy =
  | { readonly strategy: 'db' }
  | { readonly strategy: 'snowflake' | 'segment' | 'batch'; readonly generator: PrismaIdSource };

/** Makes one id in the type of the model's id field. */
export type IdMaker = () => Promise<bigint | string | number>;

/** The id makers of the models that assign ids in the application, checked against the model map. */
export function idMakers(
  models: Readonly<Record<string, ModelStrategy>>,
  map: Readonly<Record<string, SheafModelInfo>> | undefined,
): Map<string, { field: string; make: IdMaker }> {
  const makers = new Map<string, { field: string; make: IdMaker }>();
  for (const [model, config] of Object.entries(models)) {
    if (config.strategy === 'db') continue;
    if (!map) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `model ${model} uses strategy '${config.strategy}': pass sheaf({ schema: sheafModels }) from the sheaf-prisma ` +
          'generator, so that nested creates get ids too (docs/guides/prisma.md)',
        { details: { model, strategy: config.strategy } },
      );
    }
    const info = map[model];
    if (!info?.idField) {
      throw new SheafError('INVALID_ARGUMENT', `model ${model} is not in the schema or has no single-field @id`, {
        details: { model, known: Object.keys(map) },
      });
    }
    if (typeof config.generator?.next !== 'function') {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `model ${model}: strategy '${config.strategy}' needs a generator with next()`,
        {
          details: { model },
        },
      );
    }
    const convert = converterFor(model, info.idType);
    makers.set(model, { field: info.idField, make: async () => convert(await config.generator.next()) });
  }
  return makers;
}

function converterFor(model: string, type: string | undefined): (id: bigint | number) => bigint | string | number {
  if (type === 'BigInt') return (id) => BigInt(id);
  if (type === 'String') return (id) => id.toString();
  if (type === 'Int') {
    return (id) => {
      // Prisma's Int is 32-bit: only small segment or ticket ids fit.
      if (id > 2_147_483_647) {
        throw new SheafError(
          'ID_OUT_OF_RANGE',
          `id ${id} does not fit ${model}'s Int id (max 2147483647): use BigInt`,
          {
            details: { model, id: id.toString() },
          },
        );
      }
      return Number(id);
    };
  }
  throw new SheafError('INVALID_ARGUMENT', `model ${model}'s id is a ${type}, not BigInt, String or Int`, {
    details: { model, type },
  });
}
