import { type Args, flag, texts } from '../args.js';
import { defineCommand } from '../command.js';
import { type Target, targetOf, urlHelp } from '../connection.js';
import { checksFor } from '../doctor/checks.js';
import { windowMs } from '../doctor/generator-sample.js';
import { idSpaceReport } from '../doctor/id-space-report.js';
import { probe, type Snapshot } from '../doctor/probe.js';
import { type DoctorReport, failureError, renderText, tally } from '../doctor/report.js';
import { type Io, toJson } from '../io.js';
import { redactUrl } from '../redact.js';
import { UsageError } from '../usage-error.js';

/** `sheaf doctor`: a health check of one or more databases; exit 1 when any check fails. */
export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'check databases: version, layout run-out, shards, copies, clocks, saturation, workers, segments, id space',
  help: `
Usage: sheaf doctor [--url <url>]... [--json]

Checks each database and prints ok, warn or fail with a reason per check: the SQL version, the
layout's run-out date (warns within 5 years), shard ids unique across all databases given, the
server clock against this host (warns above 100 ms, fails above 1 s) and against the last id
issued, how close the generator runs to its capacity (watched for ${windowMs} ms), worker ids leased
(warns above 80 %), each segment's runway (warns below 5 years) and, on MySQL/MariaDB, BIGINT
AUTO_INCREMENT keys that look like sheaf keys but lack the sheaf trigger (warns). Fails state the
generator needs and lacks (a settings row, a sequence) and, on PostgreSQL, a copy whose shard is
bound to another node, and schema sheaf in a publication or pglogical replication set. On a Galera
node (wsrep_on): fails a sheaf older than SQL version 15 (every node issues one shard) and members
sharing a wsrep_node_name (and so a shard); warns of members without a shard of their own.

Then checks the databases as one id space: one layout on all of them; no shard value held twice
(configured and logical shards, databases registered in a registry, live worker leases: on one
database alone too); no two servers of a ticket handing out one value; claims an install left
unconfirmed (warn); the shard values left (warns above 80 % used). Two databases issuing one shard
fail whatever their database_id says (a copy keeps its original's); a Galera node issues its node's
own shard, and nodes of one cluster are compared with each other. A database reached under two URLs
(PostgreSQL: one node identity on one server; MySQL: one database_id; Galera: one node), or a hot
standby of one given, is compared once. Exit code 0 when nothing failed (warnings allowed), 1 otherwise.

Options:
${urlHelp}
                     repeat --url to check several databases as one id space
  --json             print the report as JSON
  -h, --help         show this help
`,
  options: { url: { type: 'string', multiple: true }, json: { type: 'boolean' } },
  async run(args, io) {
    const targets = targetsOf(args, io);
    const snapshots: Snapshot[] = [];
    for (const target of targets) snapshots.push(await probe(target));
    const now = Date.now();
    const report: DoctorReport = {
      databases: snapshots.map((snapshot) => ({
        database: snapshot.label,
        dialect: snapshot.target.dialect,
        checks: checksFor(snapshot, snapshots, now),
      })),
      idSpace: idSpaceReport(snapshots),
    };
    const counts = tally(report);
    io.out(flag(args, 'json') ? toJson({ ok: counts.fail === 0, summary: counts, ...report }) : renderText(report));
    const failure = failureError(report);
    if (failure) throw failure;
  },
});

/** The targets of every --url, else of DATABASE_URL; a URL given twice would compare a shard with itself. */
function targetsOf(args: Args, io: Io): Target[] {
  const urls = texts(args, 'url');
  if (urls.length === 0) return [targetOf(args, io)];
  const seen = new Set<string>();
  return urls.map((url) => {
    if (seen.has(url)) throw new UsageError(`--url ${redactUrl(url)} is given twice`);
    seen.add(url);
    return targetOf({ values: { url }, positionals: [] }, io);
  });
}
