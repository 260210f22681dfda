import { sqlVersion } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { type CheckJson, type DoctorJson, doctor } from './doctor-run.js';
import { firstValue, onUrl, postgresSelected, scratchDatabase } from './pg-scratch.js';
import { sheaf } from './run-sheaf.js';

// Several CLI processes per test, each a fresh process.
const cliTimeout = 120_000;

function checkOf(report: DoctorJson, name: string): CheckJson | undefined {
  return report.databases[0]?.checks.find((c) => c.name === name);
}

/** A database with sheaf on shard 4 that issued ids, then `tamper` run on it as the superuser. */
async function tampered(...tamper: string[]): Promise<string> {
  const url = await scratchDatabase();
  expect((await sheaf(['install', '--url', url, '--shard', '4'])).code).toBe(0);
  await firstValue(url, 'select sheaf.next_id()');
  await onUrl(url, async (sql) => {
    for (const statement of tamper) await sql.query(statement);
  });
  return url;
}

const version = sqlVersion('postgres');

// Schemas left half there (a deleted row, a dropped sequence, a copy without its sequences' values):
// status and doctor say what is missing, never a stack trace.
describe.skipIf(!postgresSelected)('sheaf status and doctor on damaged state [postgres]', () => {
  it(
    'reports a settings row deleted, without shard or layout, and the shard the repair needs',
    async () => {
      const url = await tampered('delete from sheaf.settings');
      const line =
        `sheaf.settings has no row (its shard is no longer recorded): sheaf install --url ${url} --shard <N>, ` +
        'with the shard this database issued, repairs it';
      const status = await sheaf(['status', '--url', url]);
      expect(status.code).toBe(1);
      expect(status.stdout).toBe(`database     ${url}\nsql version  ${version} (up to date)\ndamaged      ${line}\n`);
      expect(status.stderr).toBe(`sheaf: ${line} (STATE_DAMAGED)\n`);
      const json = JSON.parse((await sheaf(['status', '--url', url, '--json'])).stdout) as Record<string, unknown>;
      expect(json).toEqual({
        dialect: 'postgres',
        installed: true,
        version,
        packageVersion: version,
        upToDate: true,
        findings: [{ name: 'state', status: 'fail', message: line, code: 'STATE_DAMAGED' }],
      });

      const { code, report, stderr } = await doctor([url]);
      expect(code).toBe(1);
      expect(report.databases[0]!.checks.map((c) => [c.name, c.status])).toEqual([
        ['sql version', 'ok'],
        ['clock skew', 'ok'],
        ['state', 'fail'],
        ['replication', 'ok'],
      ]);
      expect(checkOf(report, 'state')).toMatchObject({
        message: line,
        details: { gaps: [{ object: 'sheaf.settings', problem: 'has no row', settings: true }] },
      });
      expect(stderr).toBe(`sheaf: 1 check failed: state on ${url} (STATE_DAMAGED)\n`);

      // Without a shard the install refuses; with the shard it issued, it repairs.
      expect((await sheaf(['install', '--url', url])).stderr).toContain('(STATE_DAMAGED)');
      expect((await sheaf(['install', '--url', url, '--shard', '4'])).code).toBe(0);
      expect(await firstValue(url, 'select (sheaf.next_id() >> 10) & 4095')).toBe('4');
      expect((await doctor([url])).code).toBe(0);
    },
    cliTimeout,
  );

  it(
    "reports the lock's secret and epoch gone, which sheaf install puts back",
    async () => {
      const url = await tampered('delete from sheaf.lock_secret', 'alter sequence sheaf.lock_epoch restart');
      const line =
        `sheaf.lock_secret has no row; sequence sheaf.lock_epoch was never set: sheaf install --url ${url} ` +
        'repairs them';
      const status = await sheaf(['status', '--url', url]);
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(/^shard {8}4$/m);
      expect(status.stdout).toContain(`\ndamaged      ${line}\n`);
      const { code, report } = await doctor([url]);
      expect(code).toBe(1);
      expect(checkOf(report, 'state')).toMatchObject({ status: 'fail', message: line });
      // Everything else is still judged.
      expect(checkOf(report, 'last id')?.status).toBe('ok');

      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      const repaired = await sheaf(['status', '--url', url]);
      expect(repaired.code).toBe(0);
      expect(repaired.stdout).not.toContain('damaged');
      expect((await doctor([url])).code).toBe(0);
    },
    cliTimeout,
  );

  it(
    'reads sequences never called (a crash reset, a schema copied without values) as no ids, without a gap',
    async () => {
      const url = await tampered(
        'alter sequence sheaf.block restart',
        'alter sequence sheaf.live_block restart',
        'alter sequence sheaf.counter restart',
        'alter sequence sheaf.opened_at restart',
      );
      expect(await firstValue(url, "select pg_sequence_last_value('sheaf.block') is null")).toBe('true');
      const status = await sheaf(['status', '--url', url]);
      expect(status.stderr).toBe('');
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/^ids issued {3}no$/m);
      const { code, report } = await doctor([url]);
      expect(code).toBe(0);
      expect(checkOf(report, 'state')).toBeUndefined();
      expect(checkOf(report, 'last id')?.message).toBe('no ids issued since the layout was set');
      // The generator starts again above the clock.
      await firstValue(url, 'select sheaf.next_id()');
      expect((await sheaf(['status', '--url', url])).stdout).toMatch(/^ids issued {3}yes/m);
    },
    cliTimeout,
  );

  it(
    'reports sheaf.block dropped and still judges the rest',
    async () => {
      const url = await tampered('drop sequence sheaf.block');
      const line = `sequence sheaf.block is missing: sheaf install --url ${url} repairs it`;
      const status = await sheaf(['status', '--url', url]);
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(/^ids issued {3}no$/m);
      expect(status.stdout).toContain(`\ndamaged      ${line}\n`);
      expect(status.stderr).toBe(`sheaf: ${line} (STATE_DAMAGED)\n`);
      const { code, report, stderr } = await doctor([url]);
      expect(code).toBe(1);
      expect(checkOf(report, 'state')).toMatchObject({
        status: 'fail',
        message: line,
        details: { gaps: [{ object: 'sequence sheaf.block', problem: 'is missing' }] },
      });
      expect(checkOf(report, 'shard')?.status).toBe('ok');
      expect(stderr).toBe(`sheaf: 1 check failed: state on ${url} (STATE_DAMAGED)\n`);

      expect((await sheaf(['install', '--url', url])).code).toBe(0);
      expect(await firstValue(url, 'select (sheaf.next_id() >> 10) & 4095')).toBe('4');
      expect((await doctor([url])).code).toBe(0);
    },
    cliTimeout,
  );
});
