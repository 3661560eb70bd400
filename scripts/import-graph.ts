// The import graph of the shipped code (type-only imports included), read by madge: the cycle check and the
// layer rules of docs/architecture.md run on it (test/infra/import-graph.test.ts; `npx tsx scripts/import-graph.ts`).
import madge from 'madge';

/** The folders whose imports are checked: everything that ships (the SDK and console included). */
export const CHECKED_FOLDERS = ['shared', 'functions', 'infra', 'console/src', 'sdk/js/src'];

export interface ImportGraph {
  /** file → the files it imports (paths relative to the repository root). */
  imports: Record<string, string[]>;
  /** Each import cycle as the files along it. */
  cycles: string[][];
}

export async function readImportGraph(root: string): Promise<ImportGraph> {
  const result = await madge(CHECKED_FOLDERS, { baseDir: root, fileExtensions: ['ts', 'tsx'], tsConfig: `${root}/tsconfig.json` });
  return { imports: result.obj(), cycles: result.circular() };
}

/**
 * The layers of shared/, lowest first. A module may import its own area, any area of its own layer (no cycle
 * between files, checked apart) and any area of a lower layer; an import into a higher layer is a violation
 * (docs/architecture.md, "Layers"). Areas are shared/<folder> (`shared` alone for the files at its root).
 */
export const LAYERS: readonly (readonly string[])[] = [
  // Foundation: settings, wire types and errors, load-once caches, the guardrail rules (pure), the logger.
  ['shared', 'shared/http', 'shared/cache', 'shared/guardrails', 'shared/observability/logger.ts'],
  // Infrastructure: the store and the request-record pipeline (telemetry, log engine).
  ['shared/observability', 'shared/store'],
  // Domain services the pipelines use: callers and keys, provider adapters, the audit trail, prompt rendering.
  ['shared/auth', 'shared/providers', 'shared/audit', 'shared/prompts'],
  // The request pipelines: the gateway, its inbound dialects, the MCP gateway.
  ['shared/gateway', 'shared/dialects', 'shared/mcp'],
  // The control plane and the console it serves.
  ['shared/control-plane', 'shared/console'],
];

/** Single files placed in a layer of their own (a leaf that everything below its folder's layer uses). */
const FILE_AREAS = new Set(LAYERS.flat().filter((area) => area.endsWith('.ts')));

/** The edges over shared/: Lambda handlers, the CDK app and the local runtime import shared/; nothing imports them. */
const EDGE_FOLDERS = ['functions', 'infra', 'console/src', 'sdk/js/src'];

export function areaOf(file: string): string {
  if (FILE_AREAS.has(file)) return file;
  for (const edge of EDGE_FOLDERS) if (file.startsWith(`${edge}/`)) return edge;
  const parts = file.split('/');
  if (parts[0] !== 'shared') return parts[0];
  return parts.length > 2 ? `shared/${parts[1]}` : 'shared';
}

function layerOf(area: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.includes(area));
  return index === -1 ? undefined : index;
}

/** Imports that go against the layers: from shared/ up into a higher layer, or out of shared/ into an edge. */
export function layerViolations(graph: ImportGraph): string[] {
  const violations: string[] = [];
  for (const [file, imported] of Object.entries(graph.imports)) {
    const from = areaOf(file);
    if (!from.startsWith('shared')) continue;
    const fromLayer = layerOf(from);
    for (const target of imported) {
      const to = areaOf(target);
      if (to === from) continue;
      const toLayer = layerOf(to);
      const upward = toLayer === undefined || fromLayer === undefined || toLayer > fromLayer;
      if (upward) violations.push(`${file} → ${target} (${from} may not import ${to})`);
    }
  }
  return violations.sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = await readImportGraph(process.cwd());
  for (const cycle of graph.cycles) console.log(`cycle: ${cycle.join(' → ')}`);
  for (const violation of layerViolations(graph)) console.log(`layer: ${violation}`);
  const problems = graph.cycles.length + layerViolations(graph).length;
  console.log(problems === 0 ? 'No import cycles; every import respects the layers.' : `${problems} problem(s).`);
  process.exitCode = problems === 0 ? 0 : 1;
}
