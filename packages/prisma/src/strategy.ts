import { checkExplicitId, defaultLayout, type Layout, layoutByName, type PresetName, SheafError } from '@sheaf/core';
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

/**
 * How the extension treats the id field of a configured model: `check` applies sheaf's rule for
 * explicit ids (`checkExplicitId`) to an id the create brings; `make` assigns one when it brings none
 * (not for strategy `db`, where the database does).
 */
export interface ModelIds {
  readonly field: string;
  readonly check: (id: unknown) => bigint | string | number;
  readonly make?: IdMaker;
}

/**
 * The id makers of the models that assign ids in the application, checked against the model map,
 * and the explicit-id checks of every configured model whose id field the map names.
 */
export function idMakers(
  models: Readonly<Record<string, ModelStrategy>>,
  map: Readonly<Record<string, SheafModelInfo>> | undefined,
  layout?: Layout | PresetName,
): Map<string, ModelIds> {
  const resolved = typeof layout === 'string' ? layoutByName(layout) : (layout ?? defaultLayout);
  const makers = new Map<string, ModelIds>();
  for (const [model, config] of Object.entries(models)) {
    if (config.strategy === 'db') {
      // Without the model map the id field is unknown: the database alone sees explicit ids then.
      const info = map?.[model];
      const convert = info?.idField && knownType(info.idType) ? converterFor(model, info.idType) : undefined;
      if (info?.idField && convert) {
        makers.set(model, { field: info.idField, check: (id) => convert(checkExplicitId(id, resolved)) });
      }
      continue;
    }
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
    makers.set(model, {
      field: info.idField,
      check: (id) => convert(checkExplicitId(id, resolved)),
      make: async () => convert(await config.generator.next()),
    });
  }
  return makers;
}

const knownType = (type: string | undefined) => type === 'BigInt' || type === 'String' || type === 'Int';

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
