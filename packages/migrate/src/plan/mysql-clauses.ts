import { mysqlDialect } from '@sheaf/core';
import type { ColumnToWiden, ForeignKey } from '../model.js';

const q = mysqlDialect.quoteIdent;

/**
 * `modify` restates the whole column: the type, nullability and the attributes it would otherwise
 * lose. `type` is `bigint` going forward and the inspected type (`int(10) unsigned`) going back.
 */
export function modifyColumn(column: ColumnToWiden, type: string): string {
  const attributes = column.attributes;
  const fallback = attributes?.default ?? null;
  const defaultSql = fallback === null ? '' : ` default ${/^-?\d+$/.test(fallback) ? fallback : `(${fallback})`}`;
  const comment = attributes?.comment
    ? ` comment '${attributes.comment.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
    : '';
  const increment = attributes?.autoIncrement ? ' auto_increment' : '';
  return `modify ${q(column.column)} ${type} ${column.nullable ? 'null' : 'not null'}${defaultSql}${increment}${comment}`;
}

/**
 * The key as sheaf's trigger alone fills it: without AUTO_INCREMENT, and `default 0` so that an
 * `insert … select` leaving it out passes strict mode (without a default it fails, error 1364,
 * before the trigger runs); the trigger replaces the 0.
 */
export function triggerFilledKey(column: ColumnToWiden): ColumnToWiden {
  return { ...column, attributes: { default: '0', autoIncrement: false, comment: column.attributes?.comment ?? '' } };
}

/** Re-creates a foreign key with its name, columns and rules as inspected. */
export const addForeignKey = (fk: ForeignKey): string => `add constraint ${q(fk.name)} ${fk.definition}`;

export const dropForeignKey = (fk: ForeignKey): string => `drop foreign key ${q(fk.name)}`;
