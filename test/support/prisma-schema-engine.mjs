#!/usr/bin/env node
// Stands in for Prisma's schema-engine binary, which cannot be downloaded on the test machines:
// the Prisma CLI runs this file when PRISMA_SCHEMA_ENGINE_BINARY names it, as it would the binary
// (`--datamodels <file>… --datasource <json>`, then JSON-RPC requests line by line on stdin, or
// `cli can-connect-to-database`), and each request is answered by Prisma's own WebAssembly build
// of the schema engine (@prisma/schema-engine-wasm) over @prisma/adapter-pg. So `prisma db pull`,
// `migrate diff`, `migrate resolve`, `migrate status`, `migrate dev` and `migrate reset` run here as
// the CLI runs them, with Prisma's introspection, differ and migrations table, only not its native
// database driver. PostgreSQL only: that build has no MySQL connector (it panics with "Unsupported
// adapter provider: Mysql").
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';

// adapter-pg refuses columns of PostgreSQL's one-byte "char" type (oid 18), which the engine's
// catalog queries read (pg_class.relkind, pg_constraint.contype, ...): they arrive as text (oid 25),
// the strings the native engine reads from them.
class CharAsTextClient extends pg.Client {
  query(config, values, callback) {
    const relabel = (result) => {
      for (const field of result?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
      return result;
    };
    if (typeof values === 'function') return super.query(config, (error, result) => values(error, relabel(result)));
    if (typeof callback === 'function') {
      return super.query(config, values, (error, result) => callback(error, relabel(result)));
    }
    const out = super.query(config, values);
    return typeof out?.then === 'function' ? out.then(relabel) : out;
  }
}

function adapterFor(url) {
  if (!/^postgres(ql)?:/.test(url))
    throw new Error(`prisma-schema-engine.mjs runs on PostgreSQL only, not ${url.split(':')[0]}`);
  return new PrismaPg({ connectionString: url, Client: CharAsTextClient });
}

/**
 * The adapter factory the engine gets. `migrate dev` and `migrate diff --from-migrations` replay the
 * migrations on a shadow database: a database of its own, created and dropped here as the binary
 * does (adapter-pg's own connectToShadowDb() connects back to the main database when given a
 * connection string).
 */
function factoryFor(url) {
  const main = adapterFor(url);
  return {
    adapterName: main.adapterName,
    provider: main.provider,
    connect: () => main.connect(),
    async connectToShadowDb() {
      const name = `prisma_migrate_shadow_db_${randomUUID().replaceAll('-', '_')}`;
      const admin = await main.connect();
      await admin.executeScript(`create database "${name}"`);
      const shadowUrl = new URL(url);
      shadowUrl.pathname = `/${name}`;
      const shadow = await adapterFor(shadowUrl.href).connect();
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await dispose();
        await admin.executeScript(`drop database "${name}"`);
        await admin.dispose();
      };
      return shadow;
    },
  };
}

/** What the binary writes on stderr: one JSON log line (the CLI reads `level` and `fields`). */
function log(level, message) {
  process.stderr.write(`${JSON.stringify({ level, target: 'schema_engine::logger', fields: { message } })}\n`);
}

function parseArgs(argv) {
  const datamodels = [];
  let datasource = {};
  let cliCommand;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--datamodels') {
      const path = argv[++i];
      datamodels.push([path, readFileSync(path, 'utf8')]);
    } else if (argv[i] === '--datasource') datasource = JSON.parse(argv[++i]);
    else if (argv[i] === 'cli') cliCommand = argv[++i];
    else if (argv[i].startsWith('--')) i++;
  }
  return { datamodels, url: datasource.url ?? '', cliCommand };
}

/** `schema-engine cli can-connect-to-database`: exit 0 when the database answers. */
async function runCliCommand(command, url) {
  if (command !== 'can-connect-to-database') {
    log('ERROR', `prisma-schema-engine.mjs: cli ${command} is not implemented`);
    process.exit(1);
  }
  try {
    const adapter = await adapterFor(url).connect();
    await adapter.queryRaw({ sql: 'select 1', args: [], argTypes: [] });
    await adapter.dispose();
    process.exit(0);
  } catch (error) {
    log('ERROR', error.message);
    process.exit(1);
  }
}

// A Rust panic in the engine leaves its message here before the wasm trap.
const panics = {
  message: undefined,
  set_message(message) {
    this.message = message;
  },
};
globalThis.PRISMA_WASM_PANIC_REGISTRY = panics;
process.on('uncaughtException', (error) => {
  log('ERROR', panics.message ?? String(error?.stack ?? error));
  process.exit(101); // the binary's exit code on a panic
});

async function startEngine(datamodels, url) {
  const require = createRequire(import.meta.url);
  const wasmFile = require.resolve('@prisma/schema-engine-wasm').replace(/schema_engine\.js$/, 'schema_engine_bg.wasm');
  const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(wasmFile)), {
    './schema_engine_bg.js': bindings,
  });
  bindings.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return bindings.SchemaEngine.new(
    { datamodels: datamodels.length > 0 ? datamodels : undefined },
    (line) => process.stderr.write(`${line}\n`),
    bindMigrationAwareSqlAdapterFactory(factoryFor(url)),
  );
}

// The binary's RPC names where the wasm engine's methods differ.
const METHODS = { getDatabaseVersion: 'version' };
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
let printId = 1_000_000_000;

async function answer(engine, request) {
  try {
    const result = (await engine[METHODS[request.method] ?? request.method](request.params)) ?? null;
    // `migrate diff` output: the binary asks the CLI to print it (a `print` request); the wasm
    // engine returns it as `stdout`.
    if (typeof result?.stdout === 'string') {
      const { stdout, ...rest } = result;
      if (stdout !== '') send({ id: printId++, method: 'print', params: { content: stdout.replace(/\n$/, '') } });
      send({ id: request.id, result: rest });
    } else send({ id: request.id, result });
  } catch (error) {
    const message = panics.message ?? String(error?.message);
    log('ERROR', message);
    const data = { is_panic: panics.message !== undefined, message, error_code: error?.code, meta: error?.meta };
    send({ id: request.id, error: { code: 4466, message: 'An error happened.', data } });
  }
}

const { datamodels, url, cliCommand } = parseArgs(process.argv.slice(2));
if (cliCommand !== undefined) await runCliCommand(cliCommand, url);
const engine = await startEngine(datamodels, url);
const pending = new Set();
createInterface({ input: process.stdin })
  .on('line', (line) => {
    const request = JSON.parse(line);
    if (request.method === undefined) return; // the CLI's answer to a `print` request
    const answered = answer(engine, request);
    pending.add(answered);
    answered.finally(() => pending.delete(answered));
  })
  .on('close', async () => {
    await Promise.allSettled([...pending]);
    process.exit(0);
  });
