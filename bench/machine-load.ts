// Whether the machine was quiet enough for a run to judge its targets: the rule and the parsing
// behind it, with no I/O (machine-sampler.ts reads /proc and the servers, machine-watch.ts runs it).

/** The limits of a run that may judge: above either, the Targets tables say "not judged". */
export const loadLimits = {
  /** The 1-minute load average when the run starts (os.loadavg()), after waiting up to `waitSeconds`. */
  loadBefore: 1,
  /** Work other than the bench's, in runnable tasks, as a mean over `windowSeconds`. */
  foreign: 1,
  windowSeconds: 10,
  waitSeconds: 120,
  sampleMs: 1000,
} as const;

/** One thread as /proc/<pid>/task/<tid>/stat shows it. */
export interface TaskStat {
  readonly pid: number;
  /** The command name (at most 15 characters, may hold spaces and parentheses). */
  readonly comm: string;
  /** R running or runnable, D uninterruptible sleep (both count in the load average), S, I, Z… */
  readonly state: string;
  readonly ppid: number;
}

/** A /proc/…/stat line; the name is bracketed by the first `(` and the last `)`, since it may hold either. */
export function parseTaskStat(line: string): TaskStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const [state, ppid] = line.slice(close + 2).split(' ');
  const pid = Number(line.slice(0, open).trim());
  if (!state || !Number.isInteger(pid) || !Number.isInteger(Number(ppid))) return undefined;
  return { pid, comm: line.slice(open + 1, close), state, ppid: Number(ppid) };
}

/** The local port of every socket in /proc/net/tcp or tcp6, by the socket's inode. */
export function parseSocketPorts(table: string): Map<string, number> {
  const ports = new Map<string, number>();
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const inode = fields[9];
    if (!local || !inode || inode === '0') continue;
    ports.set(inode, Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
  }
  return ports;
}

/** The client port of a MariaDB processlist host (`127.0.0.1:54432`, `[::1]:5443`); none for a socket. */
export function hostPort(host: string | null): number | undefined {
  const match = /:(\d+)$/.exec(host ?? '');
  return match ? Number(match[1]) : undefined;
}

/** What the machine ran besides the bench at one instant. */
export interface LoadSample {
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Runnable or uninterruptible tasks that are not the bench's, by what they are (a command name). */
  readonly foreign: Readonly<Record<string, number>>;
}

const sum = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** The busiest stretch of other work: the highest mean over a window, and what made it. */
export interface ForeignPeak {
  readonly mean: number;
  /** Mean tasks per name over that window, largest first. */
  readonly by: readonly (readonly [string, number])[];
  readonly samples: number;
}

/**
 * The highest mean of foreign tasks over any full `windowMs` ending at a sample taken every `stepMs`
 * (over all of them when they span less), so that a 1 s burst counts as a tenth of itself over 10 s
 * and a steady neighbour fully.
 */
export function foreignPeak(samples: readonly LoadSample[], windowMs: number, stepMs: number): ForeignPeak {
  let best: ForeignPeak = { mean: 0, by: [], samples: samples.length };
  let start = 0;
  for (let end = 0; end < samples.length; end++) {
    while (samples[end]!.at - samples[start]!.at >= windowMs) start++;
    const full = samples[end]!.at - samples[0]!.at >= windowMs - stepMs;
    if (!full && end < samples.length - 1) continue;
    const window = samples.slice(start, end + 1);
    const mean = window.reduce((total, s) => total + sum(s.foreign), 0) / window.length;
    if (mean <= best.mean) continue;
    const by = new Map<string, number>();
    for (const s of window) for (const [name, n] of Object.entries(s.foreign)) by.set(name, (by.get(name) ?? 0) + n);
    const means = [...by].map(([name, n]) => [name, n / window.length] as const).sort((a, b) => b[1] - a[1]);
    best = { mean, by: means, samples: samples.length };
  }
  return best;
}

/** What a suite's run measured of the machine. */
export interface LoadFacts {
  /** The 1-minute load average when the bench started, after any wait. */
  readonly loadBefore: number;
  readonly waitedSeconds: number;
  readonly peak: ForeignPeak;
  /** Why the machine could not be watched (the sampler failed), if it could not. */
  readonly unwatched?: string;
}

/** Whether a run may judge its targets, and the line that says what was measured. */
export interface LoadVerdict {
  /** Undefined when the run may judge; otherwise why not, in a few words, for the verdict column. */
  readonly busy?: string;
  readonly summary: string;
}

const fixed = (n: number) => n.toFixed(2);

/** Judges the facts against `loadLimits`. */
export function judgeLoad(facts: LoadFacts): LoadVerdict {
  const { loadBefore, waitedSeconds, peak, unwatched } = facts;
  const waited = waitedSeconds >= 1 ? `, after waiting ${Math.round(waitedSeconds)} s for it to fall` : '';
  const before = `1-minute load average ${fixed(loadBefore)} when the bench started${waited} (limit ${loadLimits.loadBefore})`;
  const top = peak.by
    .slice(0, 4)
    .map(([name, n]) => `${name} ${fixed(n)}`)
    .join(', ');
  const during = unwatched
    ? `other work could not be watched: ${unwatched}`
    : `other work than the bench's peaked at ${fixed(peak.mean)} runnable tasks ` +
      `(mean over ${loadLimits.windowSeconds} s, limit ${loadLimits.foreign}; ${peak.samples} samples)${top ? `: ${top}` : ''}`;
  const reasons = [
    loadBefore >= loadLimits.loadBefore ? `load ${fixed(loadBefore)} at start` : '',
    unwatched ? 'not watched' : peak.mean > loadLimits.foreign ? `other work ${fixed(peak.mean)}` : '',
  ].filter(Boolean);
  if (reasons.length === 0) return { summary: `Machine quiet: ${before}; ${during}.` };
  return {
    busy: reasons.join(', '),
    summary:
      `**Not judged: the machine was busy.** ${before}; ${during}. ` +
      'The numbers above are what this run measured; they judge no target.',
  };
}
