// Issue 12: no command prints the password of a connection URL, in a report, a usage error or a
// driver's error. Real servers: PostgreSQL's trust auth ignores the password, MariaDB refuses it.
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../packages/cli/src/redact.js';
import { mysqlUrl, pgUrl, selectedTargets } from '../support/targets.js';
import { type SheafRun, sheaf } from './run-sheaf.js';

// A CLI process per run, each booting tsx (1 to 2 s on a busy machine).
const cliTimeout = 60_000;
const secret = 's3cretPW';
const noPostgres = !selectedTargets().includes('postgres');
const noMariadb = !selectedTargets().includes('mariadb');

/** `serverUrl` with `secret` as its password, or in the query string. */
function withPassword(serverUrl: string, where: 'userinfo' | 'query' = 'userinfo'): string {
  const url = new URL(serverUrl);
  if (where === 'userinfo') url.password = secret;
  else url.searchParams.set('password', secret);
  return url.toString();
}

function expectNoSecret(run: SheafRun, hidden = secret): void {
  expect(`${run.stdout}\n${run.stderr}`).not.toContain(hidden);
}

describe('sheaf hides the password of --url', () => {
  it.skipIf(noPostgres)(
    'doctor given the same URL twice: the usage error names it without its password',
    async () => {
      const url = withPassword(pgUrl);
      const run = await sheaf(['doctor', '--url', url, '--url', url]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--url ${redactUrl(url)} is given twice`);
      expect(run.stderr).toContain(':***@');
      expectNoSecret(run);
    },
    cliTimeout,
  );

  it.skipIf(noPostgres)(
    'doctor on a reachable server, as text and as JSON',
    async () => {
      for (const url of [withPassword(pgUrl), withPassword(pgUrl, 'query')]) {
        for (const json of [[], ['--json']]) {
          const run = await sheaf(['doctor', '--url', url, ...json]);
          expect(run.stdout).toContain('127.0.0.1');
          expectNoSecret(run);
        }
      }
    },
    cliTimeout,
  );

  it.skipIf(noPostgres)(
    'a URL given as a positional argument, quoted back by node in its usage error',
    async () => {
      const run = await sheaf(['doctor', withPassword(pgUrl)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Unexpected argument');
      expectNoSecret(run);
    },
    cliTimeout,
  );

  it.skipIf(noPostgres)(
    'status and the error of a database that does not exist',
    async () => {
      const status = await sheaf(['status', '--url', withPassword(pgUrl)]);
      // Exit 1 where sheaf is not installed (NOT_INSTALLED, on stderr too): no secret either way.
      expect(status.code).toBe(status.stdout.includes('sheaf is not installed') ? 1 : 0);
      expectNoSecret(status);
      const url = new URL(withPassword(pgUrl));
      url.pathname = '/sheaf_no_such_database';
      const missing = await sheaf(['status', '--url', url.toString()]);
      expect(missing.code).toBe(1);
      expectNoSecret(missing);
    },
    cliTimeout,
  );

  it.skipIf(noPostgres)(
    'a password that is no valid URL part (an unencoded #) given twice',
    async () => {
      const user = new URL(pgUrl).username || 'postgres';
      const url = pgUrl.replace(/^([a-z]+:\/\/)(?:[^@/]*@)?/, `$1${user}:s3cret#PW@`);
      const run = await sheaf(['doctor', '--url', url, '--url', url]);
      expect(run.code).toBe(2);
      expectNoSecret(run, 's3cret');
    },
    cliTimeout,
  );

  it.skipIf(noMariadb)(
    'doctor on MariaDB, which refuses the password, given twice and once',
    async () => {
      const url = withPassword(mysqlUrl);
      const twice = await sheaf(['doctor', '--url', url, '--url', url]);
      expect(twice.code).toBe(2);
      expectNoSecret(twice);
      const once = await sheaf(['doctor', '--url', url]);
      expect(once.code).toBe(1);
      expect(once.stdout).toContain('Access denied');
      expectNoSecret(once);
    },
    cliTimeout,
  );
});
