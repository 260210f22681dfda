#!/usr/bin/env node
// Writes the next numbered file of a dialect from its current definitions, so that an upgrade runs
// exactly what a reader opens under sql/<dialect>/routines/:
//
//   node scripts/sql-version.mjs <dialect> <name> [--head <file>] [--tail <file>] <routine file>...
//
// writes sql/<dialect>/NNNN_<name>.sql (NNNN: one above the last numbered file): the head (a
// hand-written header comment and what must run first, such as drops), each routine file in the
// order given, then the tail (such as `select sheaf._bake();` and the revokes). Pieces are joined
// with `-- sheaf:break`, the installer's statement separator (packages/core/src/install/sql-file.ts),
// so a routine file with several statements separates them with it too. It always writes a new
// number: to write an unreleased file again, delete it first. Run `node scripts/embed-sql.mjs`
// afterwards.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function parse(args) {
  const [dialect, name, ...rest] = args;
  if (!dialect || !existsSync(`${root}sql/${dialect}`)) throw new Error(`unknown dialect: ${dialect}`);
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error(`the file's name must be a-z, 0-9 and _, not ${name}`);
  const options = { dialect, name, head: undefined, tail: undefined, routines: [] };
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--head' || rest[i] === '--tail') options[rest[i].slice(2)] = rest[++i];
    else options.routines.push(rest[i]);
  }
  if (options.routines.length === 0) throw new Error('no routine file given');
  return options;
}

const options = parse(process.argv.slice(2));
const dir = `${root}sql/${options.dialect}`;
const last = readdirSync(dir)
  .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
  .map((file) => Number(file.slice(0, 4)))
  .reduce((a, b) => Math.max(a, b), 0);
const target = `${dir}/${String(last + 1).padStart(4, '0')}_${options.name}.sql`;
const pieces = [options.head, ...options.routines, options.tail]
  .filter((file) => file !== undefined)
  .map((file) => readFileSync(file, 'utf8').trim());
writeFileSync(target, `${pieces.join('\n-- sheaf:break\n\n')}\n`);
console.log(`wrote ${target.slice(root.length)}`);
