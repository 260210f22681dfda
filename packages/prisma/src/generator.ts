#!/usr/bin/env node
// sheaf-prisma: a Prisma generator writing the model map that @sheaf/prisma walks nested writes with.
// Prisma runs generators as child processes speaking JSON-RPC: requests on stdin, one per line;
// answers on stderr (stdout stays free for logs). Implemented here so the package needs no
// dependency on Prisma's internal @prisma/generator-helper.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type DmmfModel, modelMapOf, renderModelMap } from './model-map.js';

interface Request {
  readonly id: number;
  readonly method: string;
  readonly params?: {
    readonly dmmf?: { readonly datamodel: { readonly models: readonly DmmfModel[] } };
    readonly generator?: { readonly output?: { readonly value?: string | null } | null };
  };
}

const respond = (message: object) => process.stderr.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

async function handle(request: Request): Promise<unknown> {
  if (request.method === 'getManifest') {
    return { manifest: { prettyName: 'sheaf model map', defaultOutput: './generated/sheaf', requiresGenerators: [] } };
  }
  if (request.method === 'generate') {
    const output = request.params?.generator?.output?.value;
    const models = request.params?.dmmf?.datamodel.models;
    if (!output || !models) throw new Error('sheaf-prisma: generate needs an output folder and the DMMF');
    const { js, dts } = renderModelMap(modelMapOf(models));
    await mkdir(output, { recursive: true });
    await writeFile(join(output, 'models.js'), js);
    await writeFile(join(output, 'models.d.ts'), dts);
    return null;
  }
  throw new Error(`sheaf-prisma: unknown method ${request.method}`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  const request = JSON.parse(line) as Request;
  handle(request).then(
    (result) => respond({ id: request.id, result }),
    (error: unknown) => respond({ id: request.id, error: { code: -32000, message: String(error), data: null } }),
  );
});
