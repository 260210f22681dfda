import { type Check, check } from './check.js';

/** The installed SQL version against this package's; not installed (undefined) is a failure. */
export function versionCheck(version: number | undefined, packageVersion: number): Check {
  const details = { installed: version ?? null, packageVersion };
  if (version === undefined) {
    return check(
      'sql version',
      'fail',
      `sheaf is not installed (this package installs version ${packageVersion}); run sheaf install`,
      {
        code: 'NOT_INSTALLED',
        details,
      },
    );
  }
  if (version < packageVersion) {
    return check(
      'sql version',
      'warn',
      `version ${version}, this package has ${packageVersion}: run sheaf install to upgrade`,
      {
        details,
      },
    );
  }
  if (version > packageVersion) {
    return check(
      'sql version',
      'warn',
      `version ${version}, newer than this package's ${packageVersion}: upgrade @sheaf/cli`,
      {
        details,
      },
    );
  }
  return check('sql version', 'ok', `version ${version}, up to date`, { details });
}
