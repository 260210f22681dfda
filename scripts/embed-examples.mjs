// Copies each example file into the pages that show it, after its `<!-- example: path -->` marker
// (a path relative to the page), so the docs show exactly the code the tests run. `--check` fails
// when one is stale. Pages: the guides of docs/guides, docs/generators.md, docs/errors.md and docs/migrate-api.md.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const pages = [
  ...readdirSync(join(docs, 'guides'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(docs, 'guides', file)),
  join(docs, 'generators.md'),
  join(docs, 'errors.md'),
  join(docs, 'migrate-api.md'),
];
const check = process.argv.includes('--check');
const marker = /(<!-- example: (\S+) -->\n)(?:\n```[a-z]*\n[\s\S]*?\n```\n)?/g;
let stale = 0;
for (const path of pages) {
  const text = readFileSync(path, 'utf8');
  const next = text.replace(marker, (_, line, file) => {
    const code = readFileSync(join(dirname(path), file), 'utf8').trimEnd();
    const lang = { '.prisma': 'prisma', '.sh': 'sh' }[extname(file)] ?? 'ts';
    return `${line}\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
  });
  if (next === text) continue;
  stale++;
  if (!check) writeFileSync(path, next);
}
if (check && stale > 0) {
  console.error(`docs: ${stale} page(s) out of date with their examples: run npm run embed-examples`);
  process.exit(1);
}
