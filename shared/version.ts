import { readFileSync } from 'node:fs';

/**
 * gw's version (package.json's `version`). The Lambda bundles get it as a literal at build time (esbuild `define`,
 * infra/cdk/bundle-options.ts), so they neither inline package.json nor read it; the local runtime, run from the
 * sources, reads it once from the file.
 */
declare const __GW_VERSION__: string | undefined;

export const GW_VERSION: string = typeof __GW_VERSION__ === 'string' ? __GW_VERSION__ : versionFromPackageJson();

function versionFromPackageJson(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
