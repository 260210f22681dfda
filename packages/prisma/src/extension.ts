import { Prisma } from '@prisma/client/extension';
import { fromDatabaseError, type Layout, type PresetName } from '@sheaf/core';
import type { SheafModelMap } from './model-map.js';
import { createData, createManyData, updateData, type Walk } from './nested.js';
import { idMakers, type ModelStrategy } from './strategy.js';

/**
 * Options of {@link sheaf}.
 *
 * @example
 * const options: SheafPrismaOptions = { schema: sheafModels, models: { Order: { strategy: 'snowflake', generator: snowflake } } };
 */
export interface SheafPrismaOptions {
  /** How each model gets its ids; models not named here are left alone. */
  readonly models: Readonly<Record<string, ModelStrategy>>;
  /** The generated `sheafModels` (generator `sheaf-prisma`): id fields and relations, for nested writes. */
  readonly schema?: SheafModelMap;
  /** The layout of the ids (default `sheaf`): explicit ids above its largest are refused. */
  readonly layout?: Layout | PresetName;
}

type Args = Record<string, unknown>;
type Rewrite = (walk: Walk, model: string, args: Args) => Promise<Args>;

const rewrites: Record<string, Rewrite> = {
  create: async (walk, model, args) => ({ ...args, data: await createData(walk, model, (args.data ?? {}) as Args) }),
  createMany: async (walk, model, args) => ({ ...args, data: await createManyData(walk, model, args.data) }),
  createManyAndReturn: async (walk, model, args) => ({ ...args, data: await createManyData(walk, model, args.data) }),
  upsert: async (walk, model, args) => ({
    ...args,
    create: await createData(walk, model, (args.create ?? {}) as Args),
    update: await updateData(walk, model, (args.update ?? {}) as Args),
  }),
  update: async (walk, model, args) => ({ ...args, data: await updateData(walk, model, (args.data ?? {}) as Args) }),
};

/**
 * A Prisma 7 client extension that gives sheaf ids to the configured models when a create brings
 * none: `create`, `createMany`, `createManyAndReturn`, `upsert` (its create branch) and nested
 * `create`, `createMany`, `connectOrCreate` and `upsert` in relations, which Prisma's query
 * extensions do not see on their own (the extension walks them with the generated model map).
 * An id a create brings is checked by sheaf's rule for explicit ids (`checkExplicitId`: 1 to the
 * layout's largest) in every configured model, `db` ones too when `schema` is given.
 * Errors that sheaf's SQL raises in any query of the extended client (a SHARD_NOT_OWNED from a
 * column default, NOT_INSTALLED from a MySQL trigger, a sheaf function in `$queryRaw`) reject as the
 * SheafError `fromDatabaseError` makes of them, Prisma's error as its `cause`.
 *
 * @example
 * import { SnowflakeGenerator, pgExecutor } from '@sheaf/core';
 * import { sheaf } from '@sheaf/prisma';
 * import { sheafModels } from './generated/sheaf/models.js';
 *
 * const snowflake = await SnowflakeGenerator.start(pgExecutor(pool));
 * const prisma = new PrismaClient({ adapter }).$extends(
 *   sheaf({ schema: sheafModels, models: { Order: { strategy: 'db' }, Event: { strategy: 'snowflake', generator: snowflake } } }),
 * );
 */
export function sheaf(options: SheafPrismaOptions) {
  const walk: Walk = { map: options.schema, makers: idMakers(options.models, options.schema, options.layout) };
  return Prisma.defineExtension({
    name: 'sheaf',
    query: {
      // Every operation, raw queries too, so that what sheaf's SQL raised (a trigger, a column
      // default, a sheaf function in $queryRaw) comes out as a SheafError; other errors stay Prisma's.
      async $allOperations({ model, operation, args, query }) {
        const rewrite = walk.makers.size > 0 ? rewrites[operation] : undefined;
        try {
          return await query(
            rewrite && model !== undefined ? ((await rewrite(walk, model, args as Args)) as typeof args) : args,
          );
        } catch (error) {
          throw fromDatabaseError(error);
        }
      },
    },
  });
}
