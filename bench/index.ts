// `npm run bench [suite…]`: runs every suite (or the named ones) and prints Markdown results.
// Ratios compare numbers measured in the same run, never against numbers from another machine.
import { beginSuite, startWatch, stopWatch, waitForQuiet } from './machine-watch.js';
import type { BenchSuite } from './suite.js';

const suites: Record<string, () => Promise<{ default: BenchSuite }>> = {
  postgres: () => import('./postgres.js'),
  generators: () => import('./generators.js'),
  mysql: () => import('./mysql.js'),
  tickets: () => import('./tickets.js'),
};

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in suites)) {
    console.error(`unknown suite "${name}" (known: ${Object.keys(suites).join(', ')})`);
    process.exit(2);
  }
}
// A busy machine judges nothing: wait for a quiet start, then watch other work while suites run.
startWatch(await waitForQuiet());
try {
  for (const [name, load] of Object.entries(suites)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    const suite = (await load()).default;
    console.error(`running ${suite.name}…`);
    beginSuite();
    console.log(`${await suite.run()}\n`);
  }
} finally {
  await stopWatch();
}
