import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { build } from 'esbuild';

/**
 * Builds the TypeScript SDK (sdk/js) into a publishable package: one ESM file with the gateway's own
 * validation (config schema, header parsers) bundled in, `openai` left to the user as a peer dependency,
 * and declarations emitted by tsc.
 */
export async function buildSdk(root = 'sdk/js'): Promise<{ file: string; bytes: number }> {
  rmSync(`${root}/dist`, { recursive: true, force: true });
  const file = `${root}/dist/index.js`;
  await build({
    entryPoints: [`${root}/src/index.ts`],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    external: ['openai'],
    sourcemap: true,
    logLevel: 'warning',
  });
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `${root}/tsconfig.json`], { stdio: 'inherit' });
  return { file, bytes: statSync(file).size };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { file, bytes } = await buildSdk();
  console.log(`sdk/js          ${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${file}`);
}
