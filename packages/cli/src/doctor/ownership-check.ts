import type { OwnershipFinding } from '@sheaf/core';
import { type Check, check } from './check.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * Objects of sheaf owned by another role than schema sheaf's owner (docs/security.md, Ownership):
 * that role can rewrite the settings or sequences, revoke the generator from others or drop it, so
 * any one is a failure, as `install()` refuses it.
 */
export function ownershipCheck(findings: readonly OwnershipFinding[] | Unreadable): Check {
  if (isUnreadable(findings)) return check('ownership', 'warn', `cannot read the owners: ${findings.unreadable}`);
  const [first] = findings;
  if (!first) return check('ownership', 'ok', "sheaf's owner owns all of sheaf");
  const shown = findings.slice(0, 5).map(({ object, owner }) => `${object} owned by ${owner}`);
  const more = findings.length > shown.length ? `; and ${findings.length - shown.length} more` : '';
  return check(
    'ownership',
    'fail',
    `${findings.length} of sheaf's objects not owned by ${first.expected}, the owner of schema sheaf ` +
      `(${shown.join('; ')}${more}): a superuser gives them to ${first.expected} or drops them ` +
      '(docs/security.md, Ownership)',
    { code: 'UNSAFE_OWNERSHIP', details: { findings } },
  );
}
