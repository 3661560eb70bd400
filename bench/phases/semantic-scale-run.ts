import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SemanticScaleRow } from '../report/results.js';

/**
 * The `semantic-scale` phase: bench/phases/semantic-scale.ts (its own module, runnable alone) fills a store with
 * N semantic-cache entries per size and measures lookups. It is imported only when the phase runs and only if the
 * file exists, so the bench runs without it; what it returns is checked before it reaches the report.
 */

type ScaleFunction = (options: { sizes: number[]; log?: (line: string) => void }) => Promise<unknown>;

/** Its exported async function: the one named like the phase, or the only function it exports. */
function scaleFunction(module: Record<string, unknown>): ScaleFunction | undefined {
  const functions = Object.entries(module).filter(([, value]) => typeof value === 'function') as Array<[string, ScaleFunction]>;
  const named = functions.find(([name]) => /semantic.*scale|scale/i.test(name));
  return (named ?? (functions.length === 1 ? functions[0] : undefined))?.[1];
}

function isRow(value: unknown): value is SemanticScaleRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  return ['entries', 'lookupBytes', 'roundTrips', 'p50Ms', 'p95Ms', 'recall'].every((field) => typeof row[field] === 'number');
}

export async function runSemanticScalePhase(root: string, sizes: number[], errors: string[], log: (line: string) => void): Promise<SemanticScaleRow[] | { unavailable: string }> {
  const file = join(root, 'bench', 'phases', 'semantic-scale.ts');
  if (!existsSync(file)) return { unavailable: 'bench/phases/semantic-scale.ts does not exist yet' };
  try {
    const module = (await import('./semantic-scale.js' as string)) as Record<string, unknown>;
    const run = scaleFunction(module);
    if (!run) throw new Error('bench/phases/semantic-scale.ts exports no scale function');
    const result = await run({ sizes, log });
    const rows = Array.isArray(result) ? result : (result as { rows?: unknown } | undefined)?.rows;
    if (!Array.isArray(rows) || !rows.every(isRow)) throw new Error(`it returned ${JSON.stringify(result).slice(0, 300)}, not rows of {entries, lookupBytes, roundTrips, p50Ms, p95Ms, recall}`);
    return rows;
  } catch (error) {
    errors.push(`semantic-scale: ${(error as Error).message}`);
    return [];
  }
}
