import { describe, expect, it } from 'vitest';
import { areaOf, layerViolations, readImportGraph, type ImportGraph } from '../../scripts/import-graph.js';

describe('the import graph of shared/, functions/, infra/, console/src and sdk/js/src (madge, type-only imports included)', () => {
  let graph: ImportGraph;
  const loaded = readImportGraph(process.cwd()).then((read) => (graph = read));

  it('has no import cycle', async () => {
    await loaded;
    expect(Object.keys(graph.imports).length, 'madge read the source tree').toBeGreaterThan(400);
    expect(graph.cycles.map((cycle) => cycle.join(' → '))).toEqual([]);
  }, 60_000);

  it('has no import from a floor of shared/ into a higher one, nor from shared/ into an edge (docs/architecture.md, "Layers")', async () => {
    await loaded;
    expect(layerViolations(graph)).toEqual([]);
  }, 60_000);

  it('reports an import into a higher floor or an edge (the check is not vacuous)', () => {
    const planted: ImportGraph = {
      imports: {
        'shared/store/a.ts': ['shared/gateway/b.ts'],
        'shared/gateway/b.ts': ['shared/store/a.ts'],
        'shared/http/c.ts': ['infra/local/main.ts'],
        'shared/observability/d.ts': ['shared/observability/logger.ts', 'shared/settings.ts'],
      },
      cycles: [],
    };
    expect(layerViolations(planted)).toEqual([
      'shared/http/c.ts → infra/local/main.ts (shared/http may not import infra)',
      'shared/store/a.ts → shared/gateway/b.ts (shared/store may not import shared/gateway)',
    ]);
    expect(areaOf('shared/observability/logger.ts')).toBe('shared/observability/logger.ts');
    expect(areaOf('shared/settings.ts')).toBe('shared');
  });
});
