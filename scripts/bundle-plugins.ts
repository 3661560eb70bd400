import { readFile, writeFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/**
 * The esbuild plugins every Lambda bundle is built with (scripts/build.ts; the CDK stack deploys what that builds).
 * Each one removes weight a plain request never uses from what a cold start must parse, without changing what
 * the code computes.
 */

/** The price data of @pydantic/genai-prices as a JSON file beside each bundle, read on first use. */
export const PRICES_FILE = 'genai-prices.json';

/** The package's data, exactly as its own calculator sees it before any update (the file the bundles read). */
export async function writePricesAsset(file: string): Promise<void> {
  const { waitForUpdate } = await import('@pydantic/genai-prices');
  await writeFile(file, JSON.stringify(await waitForUpdate()));
}

/**
 * @pydantic/genai-prices is one module whose first statement is its price data (~470 KiB of object literals,
 * `const <name> = [ … ]`) followed by the calculator that reads it. In the bundle that array literal becomes a
 * read of genai-prices.json beside the bundle, so the package's own functions compute exactly what they compute
 * from their inline data (writePricesAsset serialises that data; the bundle test compares the two for every
 * model). The read happens when the module is first evaluated, which is on the first price lookup: the pricing
 * chain imports it with `import()` (shared/observability/pricing/model-configs.ts), so it is its own chunk.
 */
export function pricesAsJsonAsset(): Plugin {
  return {
    name: 'gw-genai-prices-json',
    setup(build) {
      build.onLoad({ filter: /[\\/]@pydantic[\\/]genai-prices[\\/]dist[\\/]index\.js$/ }, async ({ path }) => ({
        contents: withoutInlineData(await readFile(path, 'utf8'), path),
        loader: 'js',
      }));
    },
  };
}

/** The module text with its leading data literal replaced by a read of the JSON asset; throws if the layout changed. */
export function withoutInlineData(source: string, path = '@pydantic/genai-prices'): string {
  const opening = /^const ([A-Za-z_$][\w$]*) = \[\n/.exec(source);
  // The literal is pretty-printed: the first `]` in column 0 closes it (nested brackets are indented).
  const closing = opening ? source.indexOf('\n]', opening[0].length) : -1;
  if (!opening || closing < 0) {
    throw new Error(`${path} no longer starts with its price data as \`const x = [ … ]\`: update scripts/bundle-plugins.ts for this version`);
  }
  const read =
    `(() => { try { return JSON.parse(__gwReadFileSync(new URL(${JSON.stringify(`./${PRICES_FILE}`)}, import.meta.url), 'utf8')); } ` +
    `catch (error) { throw new Error('gw: ${PRICES_FILE} (the price data of @pydantic/genai-prices) must sit beside the bundle; npm run build writes it: ' + error.message); } })()`;
  return `import { readFileSync as __gwReadFileSync } from 'node:fs';\nconst ${opening[1]} = ${read}${source.slice(closing + 2)}`;
}

export function lambdaBundlePlugins(): Plugin[] {
  return [pricesAsJsonAsset()];
}
