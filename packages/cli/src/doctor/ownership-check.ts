import type { DialectName, OwnershipFinding } from '@sheaf/core';
import { type Check, check } from './check.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * PostgreSQL: objects of sheaf owned by another role than schema sheaf's owner (docs/security.md,
 * Ownership): that role can rewrite the settings or sequences, revoke the generator from others or
 * drop it, so any one is a failure, as `install()` refuses it. MySQL/MariaDB: forwards of the
 * application's database that sheaf's owner did not make as the files do: whoever replaced
 * `sheaf_next_id()` decides which ids it returns.
 */
export function ownershipCheck(findings: readonly OwnershipFinding[] | Unreadable, dialect: DialectName): Check {
  if (isUnreadable(findings)) return check('ownership', 'warn', `cannot read the owners: ${findings.unreadable}`);
  const [first] = findings;
  if (!first) return check('ownership', 'ok', "sheaf's owner owns all of sheaf");
  const shown = findings.slice(0, 5).map(({ object, owner, problem }) => `${object} ${problem ?? `owned by ${owner}`}`);
  const more = findings.length > shown.length ? `; and ${findings.length - shown.length} more` : '';
  const { expected } = first;
  const message =
    dialect === 'mysql'
      ? `${findings.length} of sheaf's routines in the application's database are not the forwards that ` +
        `${expected}, sheaf's owner (the definer of its routines), made (${shown.join('; ')}${more}): ` +
        `run \`sheaf install\` as ${expected}, which re-creates them (docs/security.md, MySQL)`
      : `${findings.length} of sheaf's objects not owned by ${expected}, the owner of schema sheaf ` +
        `(${shown.join('; ')}${more}): a superuser gives them to ${expected} or drops them ` +
        '(docs/security.md, Ownership)';
  return check('ownership', 'fail', message, { code: 'UNSAFE_OWNERSHIP', details: { findings } });
}
