import type { InstalledState } from '../installed-state.js';
import { type Check, check } from './check.js';

/** The installed SQL version against this package's; not installed is a failure. */
export function versionCheck(state: InstalledState | undefined, packageVersion: number): Check {
  const details = { installed: state?.version ?? null, packageVersion };
  if (!state) {
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
  if (state.version < packageVersion) {
    return check(
      'sql version',
      'warn',
      `version ${state.version}, this package has ${packageVersion}: run sheaf install to upgrade`,
      {
        details,
      },
    );
  }
  if (state.version > packageVersion) {
    return check(
      'sql version',
      'warn',
      `version ${state.version}, newer than this package's ${packageVersion}: upgrade @sheaf/cli`,
      {
        details,
      },
    );
  }
  return check('sql version', 'ok', `version ${state.version}, up to date`, { details });
}
