import { resolve } from 'node:path';
import type { Metafile } from 'esbuild';

/**
 * What one function's esbuild outputs weigh, read from esbuild's metafile (never by scanning the minified text).
 * With code splitting a function is `index.mjs` plus chunks: a cold start loads index.mjs and the chunks it
 * imports statically (transitively); the rest are loaded by `import()` on first use.
 */
export interface BundleWeight {
  /** Bytes a cold start loads: index.mjs and its static chunk imports. */
  coldBytes: number;
  /** Bytes of every JavaScript output of the function (cold plus lazily loaded chunks). */
  totalBytes: number;
  /** The output files a cold start loads, index.mjs first. */
  coldFiles: string[];
  /** Cold-start bytes per npm package (or `(own code)`), largest first. */
  coldByPackage: PackageBytes[];
  /** The project's own source files (not node_modules) a cold start evaluates, as esbuild names them. */
  coldOwnSources: string[];
  /** Bytes per npm package over all outputs, largest first. */
  totalByPackage: PackageBytes[];
  /** What the outputs still import at run time, as esbuild recorded it. */
  externalImports: { staticImports: string[]; dynamicImports: string[] };
}

export interface PackageBytes {
  source: string;
  bytes: number;
}

type Output = Metafile['outputs'][string];

/** `root`: esbuild's working directory, which the metafile's paths are relative to. */
export function weighBundle(metafile: Metafile, entryFile: string, root = process.cwd()): BundleWeight {
  const outputs = new Map(Object.entries(metafile.outputs).filter(([path]) => /\.m?js$/.test(path)).map(([path, output]) => [resolve(root, path), output]));
  const entry = resolve(root, entryFile);
  if (!outputs.has(entry)) throw new Error(`esbuild wrote no ${entryFile}`);
  const cold = staticClosure(entry, outputs, root);
  const all = [...outputs.keys()];
  return {
    coldBytes: sum(cold, outputs),
    totalBytes: sum(all, outputs),
    coldFiles: cold,
    coldByPackage: bytesByPackage(cold.map((file) => outputs.get(file)!)),
    coldOwnSources: cold.flatMap((file) => Object.keys(outputs.get(file)!.inputs).filter((input) => !input.includes('node_modules'))),
    totalByPackage: bytesByPackage([...outputs.values()]),
    externalImports: externalImportsOf([...outputs.values()]),
  };
}

/** `file` and every output it imports with an import statement, transitively. */
function staticClosure(file: string, outputs: Map<string, Output>, root: string): string[] {
  const seen = new Set<string>([file]);
  for (const current of seen) {
    for (const { path, kind, external } of outputs.get(current)?.imports ?? []) {
      if (!external && kind === 'import-statement' && outputs.has(resolve(root, path))) seen.add(resolve(root, path));
    }
  }
  return [...seen];
}

const sum = (files: string[], outputs: Map<string, Output>) => files.reduce((total, file) => total + outputs.get(file)!.bytes, 0);

function bytesByPackage(outputs: Output[]): PackageBytes[] {
  const totals = new Map<string, number>();
  for (const output of outputs) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const source = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(own code)';
      totals.set(source, (totals.get(source) ?? 0) + bytesInOutput);
    }
  }
  return [...totals.entries()].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes);
}

function externalImportsOf(outputs: Output[]): BundleWeight['externalImports'] {
  const external = outputs.flatMap((output) => output.imports.filter((entry) => entry.external));
  const unique = (kind: string) => [...new Set(external.filter((entry) => entry.kind === kind).map((entry) => entry.path))];
  return { staticImports: unique('import-statement'), dynamicImports: unique('dynamic-import') };
}
