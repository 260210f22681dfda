/**
 * A privilege on one of sheaf's objects that goes beyond what {@link grant} gives an application:
 * held by PUBLIC, or by a role that neither owns sheaf nor is a member of its owner.
 *
 * @example
 * const finding: GrantFinding = { grantee: 'app', privilege: 'usage', object: 'sequence sheaf.block' };
 */
export interface GrantFinding {
  readonly grantee: string;
  readonly privilege: string;
  readonly object: string;
}

/**
 * One of sheaf's objects owned by another role than sheaf's owner (docs/security.md, Ownership):
 * its owner could rewrite the settings or sequences, drop the generator or revoke other roles' rights.
 *
 * @example
 * const finding: OwnershipFinding = { object: 'table sheaf.settings', owner: 'app', expected: 'postgres' };
 */
export interface OwnershipFinding {
  readonly object: string;
  readonly owner: string;
  /**
   * Sheaf's owner: the owner of schema sheaf (for an install, the installing role); on MySQL/MariaDB
   * the definer of sheaf's routines in `sheaf_<app>`.
   */
  readonly expected: string;
  /** MySQL/MariaDB: what is wrong with a forward of the application's database ("is defined by app@%"). */
  readonly problem?: string;
}
