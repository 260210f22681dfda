import { describe, expect, it } from 'vitest';
import {
  foreignPeak,
  hostPort,
  judgeLoad,
  type LoadSample,
  parseSocketPorts,
  parseTaskStat,
} from '../../bench/machine-load.js';
import { targetTable } from '../../bench/suite.js';

const statTail = '0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 128891 3133440 393';

describe('reading /proc', () => {
  it('reads pid, name, state and parent from a stat line', () => {
    expect(parseTaskStat(`24885 (cat) R 24881 24881 8503 ${statTail}`)).toEqual({
      pid: 24885,
      comm: 'cat',
      state: 'R',
      ppid: 24881,
    });
  });

  // A process may name itself anything: the name ends at the last parenthesis, not the first.
  it('keeps spaces and parentheses inside the name', () => {
    expect(parseTaskStat(`77 (npm exec (x) ) D 12 77 8503 ${statTail}`)).toMatchObject({
      comm: 'npm exec (x) ',
      state: 'D',
      ppid: 12,
    });
  });

  it('reads nothing from an empty or cut line (a process that ended while being read)', () => {
    expect(parseTaskStat('')).toBeUndefined();
    expect(parseTaskStat('12 (cat')).toBeUndefined();
    expect(parseTaskStat('12 (cat) R')).toBeUndefined();
  });

  it('maps socket inodes to their local ports, IPv4 and IPv6', () => {
    const tcp = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 10225 1 00000000153db8bb 100 0 0 10 0',
      '   1: 0100007F:D4C0 0100007F:1538 06 00000000:00000000 03:00000F5B 00000000     0        0 0 3 0000000000000000',
    ].join('\n');
    const tcp6 = [
      '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 00000000000000000000000001000000:1111 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 6788 1 00000000c15c63c7 100 0 0 10 0',
    ].join('\n');
    expect([...parseSocketPorts(tcp)]).toEqual([['10225', 3306]]); // a closing socket has inode 0
    expect([...parseSocketPorts(tcp6)]).toEqual([['6788', 4369]]);
  });

  it("reads the client port of a MariaDB processlist host, none for a local socket's", () => {
    expect(hostPort('127.0.0.1:54432')).toBe(54432);
    expect(hostPort('[::1]:5443')).toBe(5443);
    expect(hostPort('localhost')).toBeUndefined();
    expect(hostPort(null)).toBeUndefined();
  });
});

const samples = (counts: readonly number[], name = 'node'): LoadSample[] =>
  counts.map((n, i) => ({ at: i * 1000, foreign: n ? { [name]: n } : {} }));

describe('the busiest stretch of other work', () => {
  it('is the highest mean over 10 s, so a short burst counts as a tenth of itself', () => {
    const peak = foreignPeak(samples([0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 10_000, 1000);
    expect(peak.mean).toBeCloseTo(0.5);
    expect(peak.samples).toBe(12);
  });

  it('counts a steady neighbour fully and names what made the peak', () => {
    const steady = samples(Array(20).fill(2), 'vitest').map((s) => ({ ...s, foreign: { ...s.foreign, cc1: 1 } }));
    const peak = foreignPeak(steady, 10_000, 1000);
    expect(peak.mean).toBe(3);
    expect(peak.by).toEqual([
      ['vitest', 2],
      ['cc1', 1],
    ]);
  });

  it('takes the mean of everything when the samples span less than the window', () => {
    expect(foreignPeak(samples([2, 0, 1]), 10_000, 1000).mean).toBe(1);
    expect(foreignPeak([], 10_000, 1000)).toEqual({ mean: 0, by: [], samples: 0 });
  });
});

const quietPeak = { mean: 0.3, by: [['node', 0.3]] as const, samples: 40 };

describe('whether a run may judge', () => {
  it('judges below a load of 1 at the start and at most 1 task of other work, and says what it measured', () => {
    const verdict = judgeLoad({ loadBefore: 0.42, waitedSeconds: 0, peak: quietPeak });
    expect(verdict.busy).toBeUndefined();
    expect(verdict.summary).toMatch(/^Machine quiet: 1-minute load average 0\.42 .*peaked at 0\.30 .*40 samples/);
  });

  it('does not judge when the load was still 1 or more after the wait', () => {
    const verdict = judgeLoad({ loadBefore: 1, waitedSeconds: 120, peak: quietPeak });
    expect(verdict.busy).toBe('load 1.00 at start');
    expect(verdict.summary).toMatch(/^\*\*Not judged: the machine was busy\.\*\* .*after waiting 120 s/);
  });

  it('does not judge when other work went above one task', () => {
    const peak = {
      mean: 2.4,
      by: [['vitest', 1.9] as const, ['postgres (other sessions)', 0.5] as const],
      samples: 300,
    };
    const verdict = judgeLoad({ loadBefore: 0.2, waitedSeconds: 0, peak });
    expect(verdict.busy).toBe('other work 2.40');
    expect(verdict.summary).toContain('vitest 1.90, postgres (other sessions) 0.50');
  });

  it('does not judge what it could not watch', () => {
    const verdict = judgeLoad({ loadBefore: 0.2, waitedSeconds: 0, peak: quietPeak, unwatched: 'no sample was taken' });
    expect(verdict.busy).toBe('not watched');
    expect(verdict.summary).toContain('could not be watched: no sample was taken');
  });
});

describe('the Targets table', () => {
  const checks = [
    { target: 'a ≥ 90 %', measured: '95 %', met: true },
    { target: 'b ≥ 90 %', measured: '80 %', met: false },
    { target: 'c ≥ 90 %', measured: 'skipped', met: undefined },
  ];

  it('gives a verdict per row on a quiet machine, and the machine line under it', () => {
    const table = targetTable(checks, { summary: 'Machine quiet: …' });
    expect(table).toContain('| a ≥ 90 % | 95 % | met |');
    expect(table).toContain('| b ≥ 90 % | 80 % | **not met** |');
    expect(table).toContain('| c ≥ 90 % | skipped | not measured |');
    expect(table.endsWith('\n\nMachine quiet: …')).toBe(true);
  });

  it('on a busy machine keeps the numbers and judges no row', () => {
    const table = targetTable(checks, { busy: 'other work 2.40', summary: '**Not judged: the machine was busy.** …' });
    expect(table).toContain('| a ≥ 90 % | 95 % | not judged (busy: other work 2.40) |');
    expect(table).toContain('| b ≥ 90 % | 80 % | not judged (busy: other work 2.40) |');
    expect(table).toContain('| c ≥ 90 % | skipped | not measured |');
    expect(table).not.toMatch(/\| (met|\*\*not met\*\*) \|/);
    expect(table).toContain('**Not judged: the machine was busy.**');
  });

  it('judges nothing when no watch ran (a suite run on its own)', () => {
    expect(targetTable(checks)).toMatch(/\| not judged \(busy: (load [\d.]+ at start, )?not watched\) \|/);
  });
});
