import { describe, expect, it } from 'vitest';
import type { Target } from '../../packages/cli/src/connection.js';
import { relationOf } from '../../packages/cli/src/doctor/database-relation.js';
import { fleetOf } from '../../packages/cli/src/doctor/fleet.js';
import type { NodeReading } from '../../packages/cli/src/doctor/node-reading.js';
import type { Snapshot } from '../../packages/cli/src/doctor/probe.js';
import { type CheckJson, type DoctorJson, doctor } from './doctor-run.js';
import { firstValue, postgresSelected, scratchDatabase, templateCopy } from './pg-scratch.js';
import { sheaf } from './run-sheaf.js';

// Several CLI processes per test, each a fresh process.
const cliTimeout = 120_000;

function checkOf(report: DoctorJson, name: string, index: number): CheckJson {
  const found = report.databases[index]?.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check "${name}" in ${JSON.stringify(report.databases[index])}`);
  return found;
}

function fleetCheck(report: DoctorJson, name: string): CheckJson {
  const found = report.idSpace?.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no id space check "${name}" in ${JSON.stringify(report.idSpace)}`);
  return found;
}

/** A database with sheaf on shard `shard` that has issued an id. */
async function installed(shard: number): Promise<string> {
  const url = await scratchDatabase();
  expect((await sheaf(['install', '--url', url, '--shard', String(shard)])).code).toBe(0);
  await firstValue(url, 'select sheaf.next_id()');
  return url;
}

describe.skipIf(!postgresSelected)('sheaf doctor and status on copies [postgres]', () => {
  it(
    'fails a template copy beside its original whatever their database_id says, naming both, the shard and the fix',
    async () => {
      const original = await installed(5);
      await firstValue(original, 'select sheaf.add_shard(7)');
      const id = await firstValue(original, 'select database_id from sheaf.settings');
      const name = await firstValue(original, 'select database_name from sheaf.settings');
      const bound = await firstValue(original, 'select sheaf.node_identity()');
      const copy = await templateCopy(original);
      const live = await firstValue(copy, 'select sheaf.node_identity()');
      expect(await firstValue(copy, 'select database_id from sheaf.settings')).toBe(id);

      const { code, report, stderr } = await doctor([original, copy]);
      expect(code).toBe(1);
      const fix = `give one of them a new shard: sheaf install --url ${copy} --shard <N>`;
      const note = `(a copy: one database_id ${id} on two nodes)`;
      expect(checkOf(report, 'shard', 0)).toMatchObject({
        status: 'fail',
        message: `shard 5 is also configured on ${copy} ${note}: their ids collide; ${fix}`,
      });
      expect(checkOf(report, 'shard', 1).message).toBe(
        `shard 5 is also configured on ${original} ${note}: their ids collide; ${fix}`,
      );
      expect(checkOf(report, 'node identity', 0).status).toBe('ok');
      expect(checkOf(report, 'node identity', 1)).toMatchObject({
        status: 'fail',
        message:
          `this database is a copy of ${name} (database_id ${id}, shard 5): its shard is bound to node ${bound} ` +
          `and it runs on node ${live}, so next_id() refuses (DATABASE_COPIED); give it a shard of its own: ` +
          `sheaf install --url ${copy} --shard <N>; or, if the original is gone for good, confirm the move: ` +
          `sheaf install --url ${copy} --moved`,
        details: { original: name, databaseId: id, shard: 5, node: live, boundNode: bound },
      });
      // The logical shard, copied with the settings, is issued by both too.
      expect(report.idSpace!.databases).toEqual([original, copy]);
      expect(fleetCheck(report, 'shard 7')).toMatchObject({
        status: 'fail',
        message:
          `shard 7: a logical shard of ${original} and a logical shard of ${copy}: their ids collide; ` +
          `${original} and ${copy} are copies of one database (database_id ${id}) on two nodes: ${fix}`,
      });
      expect(stderr).toBe(
        `sheaf: 4 checks failed: shard on ${original}, shard on ${copy}, node identity on ${copy}, ` +
          'shard 7 in the id space (SHARD_TAKEN)\n',
      );

      const status = await sheaf(['status', '--url', copy]);
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(/^shard {8}5$/m);
      expect(status.stdout).toContain(`\ncopy         this database is a copy of ${name} (database_id ${id}, shard 5)`);
      expect(status.stderr).toMatch(/^sheaf: this database is a copy of .*--moved \(DATABASE_COPIED\)\n$/);
      const json = JSON.parse((await sheaf(['status', '--url', copy, '--json'])).stdout) as Record<string, unknown>;
      expect(json).toMatchObject({
        installed: true,
        shard: 5,
        findings: [{ name: 'node identity', status: 'fail', code: 'DATABASE_COPIED' }],
      });
      expect((await sheaf(['status', '--url', original])).code).toBe(0);

      // The fix the messages name: the copy becomes a database of its own, without the copied logical shard.
      expect((await sheaf(['install', '--url', copy, '--shard', '6'])).code).toBe(0);
      const fixed = await doctor([original, copy]);
      expect(fixed.stderr).toBe('');
      expect(fixed.code).toBe(0);
      expect(checkOf(fixed.report, 'node identity', 1).message).toBe(`shard 6 is bound to this node, ${live}`);
      expect(fleetCheck(fixed.report, 'id space').message).toBe(
        '4,093 of 4,096 shard values left: 3 held by 2 databases and 0 worker leases',
      );
    },
    cliTimeout,
  );

  it(
    'passes a copy whose original is gone once it is confirmed as moved',
    async () => {
      const original = await installed(3);
      const copy = await templateCopy(original);
      const before = await doctor([copy]);
      expect(before.code).toBe(1);
      expect(checkOf(before.report, 'node identity', 0).status).toBe('fail');
      expect(before.stderr).toBe(`sheaf: 1 check failed: node identity on ${copy} (DATABASE_COPIED)\n`);

      expect((await sheaf(['install', '--url', copy, '--moved'])).code).toBe(0);
      const after = await doctor([copy]);
      expect(after.code).toBe(0);
      expect(checkOf(after.report, 'node identity', 0)).toMatchObject({ status: 'ok', details: { shard: 3 } });
      expect(await firstValue(copy, 'select sheaf.decode_id(sheaf.next_id())')).toMatch(/,3,/);
    },
    cliTimeout,
  );
});

describe('how two databases given to the doctor relate', () => {
  const target: Target = { driver: 'pg', dialect: 'postgres', url: 'postgres://db/app' };
  const layout = { name: 'sheaf', epoch: 1704067200000, timeBits: 41, shardBits: 12, sequenceBits: 10 };
  const snapshot = (label: string, node: Partial<NodeReading> | undefined, databaseId: string): Snapshot => ({
    target,
    label,
    state: { version: 16, shard: 1, layout, idsIssued: true, native: false, nativeAvailable: false },
    idSpace: { databaseId, logicalShards: [], tickets: [] },
    ...(node ? { node: { identity: '7/16384', server: 'started 1', standby: false, ...node } } : {}),
  });

  it('tells one database, a standby, a clone, a copy and another database apart by node identity and server', () => {
    const a = snapshot('A', {}, 'id-1');
    expect(relationOf(a, snapshot('A again', {}, 'id-1'))).toEqual({ kind: 'same', by: 'node identity 7/16384' });
    const standby = snapshot('standby', { server: 'started 2', standby: true }, 'id-1');
    expect(relationOf(a, standby)).toMatchObject({ kind: 'standby', standby, primary: a });
    expect(relationOf(a, snapshot('clone', { server: 'started 2' }, 'id-1'))).toEqual({
      kind: 'clone',
      identity: '7/16384',
    });
    expect(relationOf(a, snapshot('copy', { identity: '7/16999' }, 'id-1'))).toEqual({
      kind: 'copy',
      databaseId: 'id-1',
    });
    expect(relationOf(a, snapshot('other', { identity: '8/16384' }, 'id-2'))).toEqual({ kind: 'other' });
  });

  it('falls back to the database_id where the identity cannot be told (MySQL, pg_control_system() hidden)', () => {
    const hidden = { identity: 'unknown/16384' };
    expect(relationOf(snapshot('A', hidden, 'id-1'), snapshot('B', hidden, 'id-1'))).toEqual({
      kind: 'same',
      by: 'database_id id-1',
    });
    expect(relationOf(snapshot('A', undefined, 'id-1'), snapshot('B', undefined, 'id-2'))).toEqual({ kind: 'other' });
  });

  it('keeps the primary as the member when its standby is given first', () => {
    const standby = snapshot('standby', { server: 'started 2', standby: true }, 'id-1');
    const primary = snapshot('primary', {}, 'id-1');
    const fleet = fleetOf([standby, primary]);
    expect(fleet.members).toEqual([primary]);
    expect(fleet.duplicates).toMatchObject([{ snapshot: standby, of: primary, relation: { kind: 'standby' } }]);
  });
});
