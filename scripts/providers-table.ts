import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withGeneratedTables } from '../shared/providers/capability-table.js';

export const PROVIDERS_PAGE = 'docs/providers.md';

/** `npm run providers-table` rewrites docs/providers.md's generated tables; `-- --check` exits 1 when stale. */
function main(): void {
  const file = join(process.cwd(), PROVIDERS_PAGE);
  const committed = readFileSync(file, 'utf8');
  const fresh = withGeneratedTables(committed);
  if (process.argv.includes('--check')) {
    if (fresh !== committed) {
      console.error(`${PROVIDERS_PAGE} is out of date with the provider registry: run \`npm run providers-table\` and commit it.`);
      process.exit(1);
    }
    console.log(`${PROVIDERS_PAGE} is up to date.`);
    return;
  }
  writeFileSync(file, fresh);
  console.log(`wrote ${PROVIDERS_PAGE}`);
}

main();
