// Copies each example file into the guides of docs/guides, after its `<!-- example: path -->`
// marker, so the guides show exactly the code the tests run. `--check` fails when one is stale.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const guides = fileURLToPath(new URL('../docs/guides/', import.meta.url));
const check = process.argv.includes('--check');
const marker = /(<!-- example: (\S+) -->\n)(?:\n```[a-z]*\n[\s\S]*?\n```\n)?/g;
let stale = 0;
for (const name of readdirSync(guides).filter((file) => file.endsWith('.md'))) {
  const path = join(guides, name);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(marker, (_, line, file) => {
    const code = readFileSync(join(guides, file), 'utf8').trimEnd();
    const lang = extname(file) === '.prisma' ? 'prisma' : 'ts';
    return `${line}\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
  });
  if (next === text) continue;
  stale++;
  if (!check) writeFileSync(path, next);
}
if (check && stale > 0) {
  console.error(`docs/guides: ${stale} guide(s) out of date with their examples: run npm run embed-examples`);
  process.exit(1);
}
