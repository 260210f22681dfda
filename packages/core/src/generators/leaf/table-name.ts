import type { Dialect } from '../../dialects/dialect.js';
import { SheafError } from '../../errors.js';
import { detailValue, formatArgument } from '../../format.js';

/** A plain SQL name: what a Leaf table and its columns are called in practice (and nothing to inject). */
const plainName = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * A table or column name someone else's software created, checked and quoted.
 *
 * @example
 * const table: SqlName = { schema: undefined, name: 'leaf_alloc', sql: '"leaf_alloc"' };
 */
export interface SqlName {
  /** The schema (MySQL: the database) when the name was qualified. */
  readonly schema: string | undefined;
  readonly name: string;
  /** Quoted for `dialect`, qualified when given so. */
  readonly sql: string;
}

/**
 * `value` as a name of `what` (`leaf_alloc`, or `schema.leaf_alloc` when `qualified`): each part
 * letters, digits, `_` and `$`, not starting with a digit, at most 63 characters. INVALID_ARGUMENT
 * naming the value otherwise. Quoted anyway: the name is then taken exactly as written (case too).
 */
export function sqlName(value: unknown, what: string, dialect: Dialect, qualified: boolean): SqlName {
  const parts = typeof value === 'string' ? value.split('.') : [];
  const fits = parts.length >= 1 && parts.length <= (qualified ? 2 : 1) && parts.every((part) => plainName.test(part));
  if (!fits) {
    const shape = qualified ? 'name or schema.name' : 'name';
    throw new SheafError(
      'INVALID_ARGUMENT',
      `${what} must be a ${shape} of letters, digits, _ and $ (at most 63 each, not starting with a digit), ` +
        `not ${formatArgument(value)}`,
      { details: { option: what, value: detailValue(value) } },
    );
  }
  const name = parts.at(-1)!;
  const schema = parts.length === 2 ? parts[0] : undefined;
  return { schema, name, sql: parts.map((part) => dialect.quoteIdent(part)).join('.') };
}
