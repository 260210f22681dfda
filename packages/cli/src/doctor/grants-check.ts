import type { DialectName, GrantFinding } from '@sheaf/core';
import { type Check, check } from './check.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * Privileges broader than an application's (docs/security.md): each lets a role move shared state,
 * take another shard's ids or read a lease token, so any one is a failure. On MySQL/MariaDB, the
 * accounts besides sheaf's owner that can write `sheaf_<app>`; those with global privileges are
 * administrators and not listed.
 */
export function grantsCheck(findings: readonly GrantFinding[] | Unreadable, dialect: DialectName): Check {
  if (isUnreadable(findings)) return check('grants', 'warn', `cannot read the grants: ${findings.unreadable}`);
  const mysql = dialect === 'mysql';
  if (findings.length === 0) {
    return check(
      'grants',
      'ok',
      mysql
        ? "no account but sheaf's owner can read or write sheaf's database (global privileges not judged)"
        : 'no role has more than an application needs',
    );
  }
  const shown = findings.slice(0, 5).map(({ grantee, privilege, object }) => `${grantee}: ${privilege} on ${object}`);
  const more = findings.length > shown.length ? `; and ${findings.length - shown.length} more` : '';
  const message = mysql
    ? `${findings.length} grants let accounts other than sheaf's owner read or write sheaf's database ` +
      `(${shown.join('; ')}${more}): revoke them; applications need only \`sheaf grant <account>\``
    : `${findings.length} grants broader than an application needs (${shown.join('; ')}${more}): ` +
      'revoke them, or run `sheaf grant <role>` for application roles';
  return check('grants', 'fail', message, { code: 'UNSAFE_GRANTS', details: { findings } });
}
