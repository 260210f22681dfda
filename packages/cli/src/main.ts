#!/usr/bin/env node
import { run } from './cli.js';
import { processIo } from './io.js';

// A reader that went away (`sheaf migrate --all | head`) must not stop a command halfway, least of
// all one changing a database: the rest of its output is dropped and it runs to its end.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

// exitCode rather than exit(): stdout is flushed before the process ends.
process.exitCode = await run(process.argv.slice(2), processIo);
