import { readdirSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * `npm run build`: one minified ESM bundle per Lambda under dist/<function>/index.mjs, with a source map.
 * The AWS SDK is bundled rather than taken from the runtime, so the code that runs is the code that was tested.
 */
export async function buildFunctions(outRoot = 'dist'): Promise<Array<{ name: string; file: string; bytes: number }>> {
  const names = readdirSync('functions').filter((name) => existsSync(join('functions', name, 'handler.ts')));
  rmSync(outRoot, { recursive: true, force: true });
  const results = [];
  for (const name of names) {
    const file = join(outRoot, name, 'index.mjs');
    await build({
      entryPoints: [join('functions', name, 'handler.ts')],
      outfile: file,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      minify: true,
      sourcemap: true,
      legalComments: 'none',
      mainFields: ['module', 'main'],
      // Some dependencies are CommonJS and call require(): give the ESM bundle one.
      banner: { js: "import { createRequire as __gwCreateRequire } from 'node:module'; const require = __gwCreateRequire(import.meta.url);" },
      logLevel: 'warning',
    });
    results.push({ name, file, bytes: statSync(file).size });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await buildFunctions();
  for (const { name, file, bytes } of results) console.log(`${name.padEnd(16)} ${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${file}`);
}
