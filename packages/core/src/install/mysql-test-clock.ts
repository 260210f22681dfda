import type { TestClockInstall } from './dialect-install.js';
import type { SqlFile } from './sql-file.js';
import { statementsOf } from './sql-file.js';

// The claim's clock (in sheaf_next_id() since mysql 0005, in sheaf__claim_chunk() since 0010), and its
// test variant: unix ms from `@sheaf_clock_ms` (absolute) and `@sheaf_clock_offset_ms` (added), when
// set. The fast path keeps judging the session's chunk by the real clock, so a clock moved back does
// not revive it.
const realClock = 'set v_clock = floor(unix_timestamp(sysdate(3)) * 1000);';
const testClock =
  'set v_clock = coalesce(@sheaf_clock_ms, floor(unix_timestamp(sysdate(3)) * 1000)) + coalesce(@sheaf_clock_offset_ms, 0);';
// Since 0012 it is created in sheaf's own database, its name qualified: `sheaf_x`.sheaf__claim_chunk.
const createsClaim =
  /^create\s+(?:definer\s*=\s*current_user\s+)?function\s+((?:`(?:[^`]|``)+`\.)?(?:sheaf_next_id|sheaf__claim_chunk))\s*\(/im;

/**
 * The MySQL test clock is a variant of the function that claims chunks, not a setting it reads: a
 * production install has no code path that reads the session's clock variables. The variant is the
 * newest file's claiming function with its clock statement replaced, so tests run the production
 * code but for it.
 */
export const mysqlTestClock: TestClockInstall = {
  // `{home_text}`: where sheaf's routines are (filled in by mysqlInstall's bind).
  // NULL when the function's body is hidden from this account (it is not the routine's definer).
  // A database installed only up to a version before 0010 (`upTo`) has the clock in sheaf_next_id().
  installed: `select routine_definition like '%@sheaf_clock_ms%' as test from information_schema.routines
    where routine_schema = {home_text} and routine_type = 'FUNCTION'
      and routine_name = if(exists (select 1 from information_schema.routines where routine_schema = {home_text}
        and routine_name = 'sheaf__claim_chunk'), 'sheaf__claim_chunk', 'sheaf_next_id')`,
  statements(files: readonly SqlFile[], on: boolean): string[] {
    // Before 0005 the function read the test clock itself when the settings row said so: no
    // statement has the clock statement, and there is nothing to replace.
    const create = files
      .flatMap((file) => statementsOf(file.sql))
      .filter((statement) => createsClaim.test(statement.replace(/^--.*$/gm, '')) && statement.includes(realClock))
      .at(-1);
    const name = create?.replace(/^--.*$/gm, '').match(createsClaim)?.[1];
    if (create === undefined || name === undefined || create.split(realClock).length !== 2) return [];
    return [`drop function if exists ${name}`, on ? create.replace(realClock, testClock) : create];
  },
};
