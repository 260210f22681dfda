import type { ColumnToWiden, KeyGenerator, QualifiedName } from '../model.js';
import type { MysqlColumn } from './mysql-columns.js';

/**
 * How a MySQL/MariaDB key gets its values: AUTO_INCREMENT, a MariaDB sequence as its default
 * (`default nextval(seq)`, which information_schema prints as ``nextval(`db`.`seq`)``), or the
 * application. MariaDB sequences have no OWNED BY: a sequence is never the key's alone, so it is kept.
 */
export function mysqlGenerator(key: MysqlColumn): KeyGenerator {
  if (key.attributes?.autoIncrement) return { kind: 'auto_increment' };
  const sequence = sequenceOfDefault(key.attributes?.default ?? null, key.table.schema);
  return sequence ? { kind: 'sequence', sequence, owned: false } : { kind: 'none' };
}

/** The sequence a column default draws from (`nextval(`db`.`seq`)`, `nextval(seq)`), if it is one. */
export function sequenceOfDefault(text: string | null, schema: string): QualifiedName | undefined {
  const inner = text
    ?.trim()
    .match(/^nextval\s*\((.*)\)$/is)?.[1]
    ?.trim();
  if (!inner) return undefined;
  const parts = [...inner.matchAll(/`((?:[^`]|``)*)`|([^`.\s]+)/g)].map(
    (m) => m[1]?.replaceAll('``', '`') ?? m[2] ?? '',
  );
  if (parts.length === 1) return { schema, name: parts[0] ?? '' };
  if (parts.length === 2) return { schema: parts[0] ?? schema, name: parts[1] ?? '' };
  return undefined;
}

/**
 * The column with `default 0` instead of a default that draws from a sequence: sheaf's trigger fills
 * only NULL and 0, so the sequence would go on making the keys; 0 keeps `insert … select` without the
 * key working in strict mode (a key without any default fails there before the trigger runs).
 */
export function replaceSequenceDefault(column: ColumnToWiden): ColumnToWiden {
  const attributes = column.attributes;
  if (!attributes || !sequenceOfDefault(attributes.default, column.table.schema)) return column;
  return { ...column, attributes: { ...attributes, default: '0' } };
}
