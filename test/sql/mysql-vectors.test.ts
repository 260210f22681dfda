import { readFileSync } from 'node:fs';
import { install, layoutByName } from '@sheaf/core';
import { expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { datetime } from '../support/mysql-calls.js';

interface Vector {
  layout: string;
  time: string;
  shardId: number;
  sequence: number;
  id: string;
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors.json', import.meta.url), 'utf8')) as Vector[];
const layouts = [...new Set(vectors.map((vector) => vector.layout))];

describeTargets(
  'test/fixtures/vectors.json in MySQL/MariaDB SQL',
  (db) => {
    it.each(layouts)('encodes and decodes every %s vector both ways', async (name) => {
      // No id is issued here, so one database can take each layout in turn.
      await install(db().executor, { layout: layoutByName(name) });
      for (const vector of vectors.filter((candidate) => candidate.layout === name)) {
        const [row] = await db().executor.query<Record<string, string | number>>(
          `select sheaf_encode_id(?, ?, ?) as encoded,
            sheaf_id_floor(?) | (? << ?) | ? as from_floor,
            sheaf_id_ceiling(?) as ceiling,
            date_format(sheaf_id_time(?), '%Y-%m-%d %H:%i:%s.%f') as time,
            sheaf_id_shard(?) as shard, sheaf_id_sequence(?) as sequence,
            sheaf_decode_id(?) as decoded`,
          [
            datetime(vector.time),
            vector.shardId,
            vector.sequence,
            datetime(vector.time),
            vector.shardId,
            layoutByName(name).sequenceBits,
            vector.sequence,
            datetime(vector.time),
            vector.id,
            vector.id,
            vector.id,
            vector.id,
          ],
        );
        const layout = layoutByName(name);
        const floor = (BigInt(vector.id) >> layout.timeShift) << layout.timeShift;
        expect(String(row?.encoded), vector.id).toBe(vector.id);
        expect(String(row?.from_floor)).toBe(vector.id);
        expect(String(row?.ceiling)).toBe(String(floor | layout.lowMask));
        expect(String(row?.time).slice(0, 23)).toBe(datetime(vector.time));
        expect(Number(row?.shard)).toBe(vector.shardId);
        expect(Number(row?.sequence)).toBe(vector.sequence);
        expect(JSON.parse(String(row?.decoded))).toEqual({
          created_at: vector.time,
          shard_id: vector.shardId,
          sequence: vector.sequence,
        });
      }
    });
  },
  { only: ['mariadb'] },
);
