import { SheafError } from '@sheaf/core';
import { redactUrl } from './redact.js';

/**
 * The sslmode values pg acts on. It reads any other value in a URL as TLS with full verification
 * and one in PGSSLMODE as no TLS, silently: the connection then fails with "The server does not
 * support SSL connections", or goes out unencrypted.
 */
export const pgSslModes = Object.freeze(['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']);

/** The URL parameters that set pg's TLS options, which PGSSLMODE then does not. */
const pgSslParameters = ['ssl', 'sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'sslnegotiation'];

/** MySQL's spellings of it (Connector/J's sslMode, the client's --ssl-mode), which mysql2 ignores. */
const mysqlSslMode = /^ssl[-_]?mode$/i;

/** The query parameters of `url` as pg and mysql2 read them (URLSearchParams), without parsing the rest. */
function queryOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start < 0 ? '' : url.slice(start + 1).split('#')[0]);
}

/**
 * Refuses, before connecting, an sslmode pg does not know in a postgres URL (or in PGSSLMODE when
 * the URL has none), and any sslmode in a mysql URL: mysql2 has none and would connect without TLS.
 * INVALID_ARGUMENT naming the value and what is accepted.
 */
export function checkSslMode(driver: 'pg' | 'mysql2', url: string, env: Readonly<Record<string, string | undefined>>) {
  const query = queryOf(url);
  if (driver === 'mysql2') {
    const key = [...query.keys()].find((name) => mysqlSslMode.test(name));
    if (key === undefined) return;
    throw new SheafError(
      'INVALID_ARGUMENT',
      `${key} ${JSON.stringify(query.get(key))} in ${redactUrl(url)}: mysql2 has no ${key} and would connect ` +
        'without TLS; remove it, and for TLS pass ssl={"rejectUnauthorized":true} (URL-encoded: ' +
        'ssl=%7B%22rejectUnauthorized%22%3Atrue%7D)',
      { details: { parameter: key, value: query.get(key), driver } },
    );
  }
  // pg reads PGSSLMODE only when the URL says nothing about TLS.
  const fromUrl = pgSslParameters.some((name) => query.has(name));
  const modes = fromUrl ? query.getAll('sslmode') : [env.PGSSLMODE];
  for (const mode of modes) {
    if (mode === undefined || mode === '' || pgSslModes.includes(mode)) continue;
    const [named, misread] = fromUrl
      ? [`sslmode ${JSON.stringify(mode)} in ${redactUrl(url)}`, 'TLS with the certificate verified']
      : [`PGSSLMODE ${JSON.stringify(mode)}`, 'no TLS'];
    throw new SheafError(
      'INVALID_ARGUMENT',
      `${named} is not one pg knows (it would read it as ${misread}): use one of ${pgSslModes.join(', ')}`,
      { details: { parameter: fromUrl ? 'sslmode' : 'PGSSLMODE', value: mode, accepted: pgSslModes } },
    );
  }
}
