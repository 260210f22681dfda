import type { GrantFinding } from '@sheaf/core';
import { type Check, check } from './check.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * Privileges broader than an application's (docs/security.md): each lets a role move shared state,
 * take another shard's ids or read a lease token, so any one is a failure.
 */
export function grantsCheck(findings: readonly GrantFinding[] | Unreadable): Check {
  if (isUnreadable(findings)) return check('grants', 'warn', `cannot read the grants: ${findings.unreadable}`);
  if (findings.length === 0) return check('grants', 'ok', 'no role has more than an application needs');
  const shown = findings.slice(0, 5).map(({ grantee, privilege, object }) => `${grantee}: ${privilege} on ${object}`);
  const more = findings.length > shown.length ? `; and ${findings.length - shown.length} more` : '';
  return check(
    'grants',
    'fail',
    `${findings.length} grants broader than an application needs (${shown.join('; ')}${more}): ` +
      'revoke them, or run `sheaf grant <role>` for application roles',
    { code: 'UNSAFE_GRANTS', details: { findings } },
  );
}
