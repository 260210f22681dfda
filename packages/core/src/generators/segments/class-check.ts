import { SheafError } from '../../errors.js';
import type { ResidueClass } from './classes.js';

/**
 * The first database whose recorded class is not the one its position gives it (database k of n:
 * k mod n), as SEGMENT_CLASS_MISMATCH naming it and, when its class is another position's, that
 * database too. `recorded[k]` is undefined for a database that did not answer. If every database
 * that answered matches its position, no two share a class: positions are distinct.
 */
export function classMismatch(bizTag: string, recorded: readonly (ResidueClass | undefined)[]): SheafError | undefined {
  const n = recorded.length;
  for (const [index, found] of recorded.entries()) {
    if (found === undefined || (found.delta === n && found.remainder === index)) continue;
    const twin = found.delta === n ? found.remainder : undefined;
    const why =
      found.delta === n
        ? `which is the class of database ${twin} (position ${twin}): two databases of one class would hand out the same ids`
        : found.delta === 1
          ? 'the class of a segment of one database: make it a class of this set (docs/generators.md, several databases)'
          : `a class of a set of ${found.delta} databases, but ${n} were given`;
    return new SheafError(
      'SEGMENT_CLASS_MISMATCH',
      `segment '${bizTag}': database ${index} of ${n} records residue class ${found.remainder} mod ${found.delta}, ` +
        `not ${index} mod ${n}; ${why}`,
      {
        details: {
          bizTag,
          database: index,
          databases: n,
          delta: found.delta,
          remainder: found.remainder,
          ...(twin === undefined ? {} : { sameClassAs: twin }),
        },
      },
    );
  }
  return undefined;
}
