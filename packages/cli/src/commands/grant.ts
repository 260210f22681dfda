import { grant } from '@sheaf/core';
import { flag } from '../args.js';
import { defineCommand } from '../command.js';
import { describeTarget, targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { toJson } from '../io.js';
import { UsageError } from '../usage-error.js';

export const grantCommand = defineCommand({
  name: 'grant',
  summary: "give an application role exactly the privileges it needs, and nothing of sheaf's internals",
  help: `
Usage: sheaf grant <role> [--url <url>] [--dry-run] [--json]

Gives <role> what an application needs: taking ids (next_id, next_ids and their durable forms),
tickets, segments and worker leases, and decoding ids. Nothing that configures sheaf, reserves ids
ahead of the clock or reads its tables. On PostgreSQL, what the role had on schema sheaf is revoked
first, in the same transaction; run it as the owner of schema sheaf. On MySQL/MariaDB <role> is an
account, user@host (host % when left out); run it as an account that may grant. See
docs/security.md.

Options:
${urlHelp}
  --dry-run          print the statements instead of running them
  --json             print { role, statements, applied } as JSON
  -h, --help         show this help

Example:
  sheaf grant app --url postgres://owner@db.example.com/shop
`,
  options: { ...urlOption, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: true,
  async run(args, io) {
    const [role, ...extra] = args.positionals;
    if (role === undefined) throw new UsageError('missing <role>: name the application role');
    if (extra.length > 0) throw new UsageError(`one role at a time, not ${args.positionals.length}`);
    const target = targetOf(args, io);
    const dryRun = flag(args, 'dry-run');
    const result = await withConnection(target, { create: false }, (executor) => grant(executor, role, { dryRun }));
    if (flag(args, 'json')) {
      io.out(toJson({ role, ...result }));
      return;
    }
    if (dryRun) {
      io.out(result.statements.map((statement) => `${statement};\n`).join(''));
      return;
    }
    io.out(
      `granted ${role} an application's privileges on ${describeTarget(target)} (${result.statements.length} statements)\n`,
    );
  },
});
