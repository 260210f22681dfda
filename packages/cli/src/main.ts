#!/usr/bin/env node
import { run } from './cli.js';
import { processIo } from './io.js';

// exitCode rather than exit(): stdout is flushed before the process ends.
process.exitCode = await run(process.argv.slice(2), processIo);
