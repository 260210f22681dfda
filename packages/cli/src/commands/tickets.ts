import { type Args, count, flag, required, text, texts } from '../args.js';
import { defineCommand } from '../command.js';
import { type Target, targetOf } from '../connection.js';
import { type Io, toJson } from '../io.js';
import { redactUrl } from '../redact.js';
import { type AdoptPair, adoptTickets } from '../tickets/adopt-plan.js';
import { renderAdoptText } from '../tickets/adopt-report.js';
import { UsageError } from '../usage-error.js';

/** `sheaf tickets adopt`: takes a ticket over from Flickr-classic ticket servers. */
export const ticketsCommand = defineCommand({
  name: 'tickets',
  summary: "tickets adopt: take a ticket over from Flickr-classic ticket servers (Tickets64) to sheaf's",
  help: `
Usage: sheaf tickets adopt --name <ticket> --from <classic url>... --url <sheaf url>... --headroom N
                           [--table Tickets64] [--column id] [--step N] [--offset K]... [--dry-run] [--json]

Takes the ticket <name> over from Flickr-classic ticket servers (a table whose id is AUTO_INCREMENT
with auto_increment_increment/offset, or a sequence with increment by <step>), all of them at
once: the i-th --url, a sheaf server, continues the series of the i-th --from. Reads every classic
server's counter and its table's max(id) (REPLACE deletes rows: the counter is the truth), checks
each server's series, then creates the ticket on every sheaf server with the same step and offset,
starting above the highest ticket any classic server handed out plus --headroom tickets. Nothing
is changed when anything is refused. Run it again after the switch: it changes nothing and checks
that no classic ticket reached the sheaf tickets. Run it as sheaf's owner or an admin. The safe
order of the steps with applications running: docs/tickets-adopt.md.

Options:
  --name <ticket>    the ticket's name on the sheaf servers
  --from <url>       a classic ticket server (mysql://, mariadb://, postgres://), once per server
  --url <url>        the sheaf server that takes over the --from at the same position; default:
                     $DATABASE_URL when there is one --from
  --headroom N       tickets each classic server may still hand out after its counter was read
                     (0 when their writes are stopped): the sheaf tickets start above them
  --table <name>     the classic table (default Tickets64)
  --column <name>    its id column (default id)
  --step N           the classic servers' step (default: the number of --from)
  --offset K         the i-th classic server's offset, once per --from (default 1, 2, …)
  --dry-run          read and check everything, change nothing
  --json             print the report as JSON
  -h, --help         show this help

Example:
  sheaf tickets adopt --name orders --headroom 100000 \\
    --from mysql://admin@tickets-1/flickr --from mysql://admin@tickets-2/flickr \\
    --url mysql://admin@db-1/app --url mysql://admin@db-2/app
`,
  options: {
    name: { type: 'string' },
    from: { type: 'string', multiple: true },
    url: { type: 'string', multiple: true },
    headroom: { type: 'string' },
    table: { type: 'string' },
    column: { type: 'string' },
    step: { type: 'string' },
    offset: { type: 'string', multiple: true },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  positionals: true,
  async run(args, io) {
    const [action, ...extra] = args.positionals;
    if (action !== 'adopt') {
      throw new UsageError(
        action === undefined ? 'missing the action: sheaf tickets adopt' : `unknown action "${action}"`,
      );
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    const name = required(args, 'name');
    if (name === '') throw new UsageError('--name must not be empty');
    const headroom = count('headroom', required(args, 'headroom'));
    const pairs = pairsOf(args, io);
    const report = await adoptTickets({
      name,
      table: { table: text(args, 'table') ?? 'Tickets64', column: text(args, 'column') ?? 'id' },
      step: stepOf(args, pairs.length),
      headroom: BigInt(headroom),
      pairs,
      dryRun: flag(args, 'dry-run'),
    });
    io.out(flag(args, 'json') ? toJson(report) : renderAdoptText(report));
  },
});

function stepOf(args: Args, servers: number): number {
  const raw = text(args, 'step');
  const step = raw === undefined ? servers : count('step', raw);
  if (step < servers) throw new UsageError(`--step ${step} leaves no offset of its own for each of ${servers} servers`);
  return step;
}

/** The i-th --from with the i-th --url and offset; each URL once, each offset once and within the step. */
function pairsOf(args: Args, io: Io): AdoptPair[] {
  const from = distinct(texts(args, 'from'), 'from', io);
  if (from.length === 0) throw new UsageError('missing --from: name every classic ticket server');
  let to = distinct(texts(args, 'url'), 'url', io);
  if (to.length === 0 && from.length === 1) to = [targetOf(args, io)];
  if (to.length !== from.length) {
    throw new UsageError(
      `${from.length} --from but ${to.length} --url: give one sheaf server per classic server, in the same order`,
    );
  }
  const step = stepOf(args, from.length);
  const given = texts(args, 'offset').map((raw) => count('offset', raw));
  if (given.length > 0 && given.length !== from.length) {
    throw new UsageError(`${given.length} --offset for ${from.length} --from: give one per classic server, or none`);
  }
  const offsets = given.length > 0 ? given : from.map((_, index) => index + 1);
  offsets.forEach((offset, index) => {
    if (offset < 1 || offset > step) throw new UsageError(`--offset ${offset} is not from 1 to the step ${step}`);
    if (offsets.indexOf(offset) !== index) throw new UsageError(`--offset ${offset} is given twice`);
  });
  return from.map((source, index) => ({ from: source, to: to[index] as Target, offset: offsets[index] as number }));
}

function distinct(urls: readonly string[], option: string, io: Io): Target[] {
  return urls.map((url, index) => {
    if (urls.indexOf(url) !== index) throw new UsageError(`--${option} ${redactUrl(url)} is given twice`);
    return targetOf({ values: { url }, positionals: [] }, io);
  });
}
