import type { SqlFile } from './sql-file.js';
import { statementsOf } from './sql-file.js';

// The name may be qualified by a quoted database (`sheaf_shop`.sheaf_nodes, MySQL since 0012).
const created =
  /^create\s+(table|function|procedure|trigger|view)\s+(?:if\s+not\s+exists\s+)?((?:`(?:[^`]|``)+`\.)?[a-z0-9_.]+)/im;

/**
 * `drop … if exists` for every object a file creates, last created first. Without transactional
 * DDL a file that failed half-way leaves some of its objects behind, unrecorded; dropping them
 * before the file runs again lets a later install repair the database. Objects of an unrecorded
 * file hold nothing worth keeping as long as a file only creates objects: a future upgrade file
 * that moves rows into a table it creates must not be written that way, since a re-run would drop
 * that table with the rows in it.
 */
export function leftoverDrops(file: SqlFile): string[] {
  const drops: string[] = [];
  for (const statement of statementsOf(file.sql)) {
    const match = created.exec(statement.replace(/^--.*$/gm, '').trim());
    if (match) drops.unshift(`drop ${match[1]!.toLowerCase()} if exists ${match[2]}`);
  }
  return drops;
}
