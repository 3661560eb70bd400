import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCapabilityTable, withGeneratedTables } from '../../../shared/providers/capability-table.js';
import { PROVIDER_SLUGS } from '../../../shared/providers/registry.js';

// docs/providers.md's provider × endpoint table is generated from the registry (issue #47): a doc that drifted from
// the code is a defect this test catches, whoever added the provider.

describe('docs/providers.md generated tables', () => {
  it('doc drift: the committed tables equal the ones generated from the registry (run npm run providers-table)', () => {
    const page = readFileSync('docs/providers.md', 'utf8');
    expect(withGeneratedTables(page)).toBe(page);
  });

  it('the table has one row per registered provider, read from the registry rather than a list', () => {
    const rows = renderCapabilityTable().split('\n').slice(2);
    expect(rows).toHaveLength(PROVIDER_SLUGS.length);
    for (const slug of PROVIDER_SLUGS) expect(rows.some((row) => row.startsWith(`| \`${slug}\``)), slug).toBe(true);
  });

  it('a page without the markers is refused rather than silently left as it was', () => {
    expect(() => withGeneratedTables('# Providers\n')).toThrow('lacks the markers');
  });
});
