import type { SheafModelMap } from './model-map.js';
import type { ModelIds } from './strategy.js';

type Data = Record<string, unknown>;

/** What the walk needs: the model map and the id makers of the models that assign ids. */
export interface Walk {
  readonly map: SheafModelMap | undefined;
  readonly makers: ReadonlyMap<string, ModelIds>;
}

const isObject = (value: unknown): value is Data =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** Applies `fn` to one value or each of a list, copying (the caller's arguments are never changed). */
async function each(value: unknown, fn: (item: Data) => Promise<Data>): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((item) => (isObject(item) ? fn(item) : item)));
  return isObject(value) ? fn(value) : value;
}

/**
 * Create data of `model`: the id it was given, checked as every adapter checks explicit ids, or a new
 * one when none was given; then the nested writes of its relations.
 */
export async function createData(walk: Walk, model: string, data: Data): Promise<Data> {
  const maker = walk.makers.get(model);
  const given = maker && data[maker.field];
  // Before the nested writes: a refused id must not cost ids taken for the rows under it.
  const id = maker && given !== undefined && given !== null ? maker.check(given) : undefined;
  const copy = await relationWrites(walk, model, data);
  if (maker && id !== undefined) copy[maker.field] = id;
  else if (maker?.make) copy[maker.field] = await maker.make();
  return copy;
}

/** Update data of `model`: no id of its own, but nested creates in its relations get theirs. */
export function updateData(walk: Walk, model: string, data: Data): Promise<Data> {
  return relationWrites(walk, model, data);
}

/** Many rows of `model`, as `createMany` or `createManyAndReturn` take them (no nested writes there). */
export function createManyData(walk: Walk, model: string, data: unknown): Promise<unknown> {
  return each(data, (row) => createData(walk, model, row));
}

async function relationWrites(walk: Walk, model: string, data: Data): Promise<Data> {
  const copy: Data = { ...data };
  const relations = walk.map?.[model]?.relations ?? {};
  for (const [field, target] of Object.entries(relations)) {
    const ops = copy[field];
    if (isObject(ops)) copy[field] = await nestedOps(walk, target, ops);
  }
  return copy;
}

/** The operations of a relation field: create, createMany, connectOrCreate, upsert and update. */
async function nestedOps(walk: Walk, model: string, ops: Data): Promise<Data> {
  const copy: Data = { ...ops };
  if ('create' in ops) copy.create = await each(ops.create, (item) => createData(walk, model, item));
  if (isObject(ops.createMany)) {
    copy.createMany = { ...ops.createMany, data: await createManyData(walk, model, ops.createMany.data) };
  }
  if ('connectOrCreate' in ops) {
    copy.connectOrCreate = await each(ops.connectOrCreate, async (item) => ({
      ...item,
      create: isObject(item.create) ? await createData(walk, model, item.create) : item.create,
    }));
  }
  if ('upsert' in ops) {
    copy.upsert = await each(ops.upsert, async (item) => ({
      ...item,
      create: isObject(item.create) ? await createData(walk, model, item.create) : item.create,
      update: isObject(item.update) ? await updateData(walk, model, item.update) : item.update,
    }));
  }
  if ('update' in ops) {
    // To-many: { where, data } items; to-one: the data itself, or { where?, data }.
    copy.update = await each(ops.update, async (item) =>
      isObject(item.data) && Object.keys(item).every((key) => key === 'where' || key === 'data')
        ? { ...item, data: await updateData(walk, model, item.data) }
        : updateData(walk, model, item),
    );
  }
  return copy;
}
