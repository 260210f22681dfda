// An sslmode its driver would misread is refused before connecting, naming the value and what is
// accepted: pg reads an unknown sslmode in a URL as TLS with the certificate verified ("The server
// does not support SSL connections" from a server without TLS) and one in PGSSLMODE as no TLS;
// mysql2 has no sslmode at all and connects without TLS. Every command reads URLs through the same
// parser: --url, DATABASE_URL, doctor's several --url, install's --registry.
import { describe, expect, it } from 'vitest';
import { mysqlUrl, pgUrl, selectedTargets } from '../support/targets.js';
import { type SheafRun, sheaf } from './run-sheaf.js';

// A CLI process per run, each booting node (1 to 2 s on a busy machine).
const cliTimeout = 60_000;
const noPostgres = !selectedTargets().includes('postgres');
const accepted = 'use one of disable, prefer, require, verify-ca, verify-full, no-verify (INVALID_ARGUMENT)';

/** `serverUrl` with a password and `query` added. */
function withQuery(serverUrl: string, query: string): string {
  const url = new URL(serverUrl);
  url.password = 's3cretPW';
  return `${url.toString()}?${query}`;
}

function expectRefused(run: SheafRun, ...fragments: string[]): void {
  expect(run.code).toBe(1);
  for (const fragment of fragments) expect(run.stderr).toContain(fragment);
  expect(run.stderr).not.toContain('s3cretPW');
}

describe('sheaf refuses an sslmode its driver would misread', () => {
  const bogus = withQuery(pgUrl, 'sslmode=bogus');
  const named = `sslmode "bogus" in ${bogus.replace('s3cretPW', '***')} is not one pg knows`;

  it.skipIf(noPostgres)(
    'postgres://…?sslmode=bogus in --url, DATABASE_URL, doctor and --registry: INVALID_ARGUMENT naming it',
    async () => {
      expectRefused(
        await sheaf(['status', '--url', bogus]),
        named,
        '(it would read it as TLS with the certificate verified)',
        accepted,
      );
      expectRefused(await sheaf(['status'], { DATABASE_URL: bogus }), named, accepted);
      expectRefused(
        await sheaf(['doctor', '--url', withQuery(pgUrl, 'sslmode=disable'), '--url', bogus]),
        named,
        accepted,
      );
      expectRefused(
        await sheaf(['install', '--url', withQuery(pgUrl, 'sslmode=disable'), '--registry', bogus]),
        named,
        accepted,
      );
    },
    cliTimeout,
  );

  it.skipIf(noPostgres)(
    'a PGSSLMODE pg does not know, when the URL says nothing about TLS',
    async () => {
      const plain = withQuery(pgUrl, 'application_name=sheaf');
      expectRefused(
        await sheaf(['status', '--url', plain], { PGSSLMODE: 'Require' }),
        'PGSSLMODE "Require" is not one pg knows (it would read it as no TLS)',
        accepted,
      );
      // The URL's own sslmode wins over PGSSLMODE, as in pg: connecting goes ahead.
      const run = await sheaf(['status', '--url', withQuery(pgUrl, 'sslmode=disable')], { PGSSLMODE: 'Require' });
      expect(run.stderr).not.toContain('INVALID_ARGUMENT');
      expect(`${run.stdout}${run.stderr}`).toContain('127.0.0.1');
    },
    cliTimeout,
  );

  it(
    'an sslmode in a mysql URL, which mysql2 would ignore',
    async () => {
      for (const [query, key] of [
        ['sslmode=REQUIRED', 'sslmode'],
        ['ssl-mode=required', 'ssl-mode'],
      ]) {
        expectRefused(
          await sheaf(['status', '--url', withQuery(mysqlUrl, query!)]),
          `${key} "${query!.split('=')[1]}" in mysql://root:***@`,
          `mysql2 has no ${key} and would connect without TLS; remove it, and for TLS pass ssl={"rejectUnauthorized":true}`,
          '(INVALID_ARGUMENT)',
        );
      }
    },
    cliTimeout,
  );
});
