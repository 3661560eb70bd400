import { LogLevel, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { buildTimeDefines, LAMBDA_BUNDLE } from './bundle-options.js';

/**
 * LAMBDA_BUNDLE expressed as NodejsFunction bundling options: the same esbuild settings `npm run build` uses,
 * run by the project's own esbuild (never Docker). The CDK app no longer bundles this way (infra/cdk/app.ts
 * deploys what scripts/build.ts builds): NodejsFunction's esbuild command line has no plugins and writes one
 * `--outfile`, so it cannot split chunks or move the price data to genai-prices.json.
 * This is the fallback of a GwStack constructed without prebuilt bundles: a correct, larger, unsplit bundle.
 */
export function nodejsBundlingOptions(options: { withConsole?: boolean } = {}): BundlingOptions {
  return {
    commandHooks: afterBundlingHooks(options.withConsole === true),
    target: LAMBDA_BUNDLE.target,
    format: LAMBDA_BUNDLE.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
    minify: LAMBDA_BUNDLE.minify,
    sourceMap: LAMBDA_BUNDLE.sourcemap,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: LAMBDA_BUNDLE.banner,
    define: buildTimeDefines(),
    // Keeps the AWS SDK in the bundle (NodejsFunction would otherwise leave all of @aws-sdk/* to the runtime).
    bundleAwsSDK: true,
    externalModules: [...LAMBDA_BUNDLE.external],
    esbuildArgs: { '--legal-comments': LAMBDA_BUNDLE.legalComments },
    logLevel: LogLevel.WARNING,
    forceDockerBundling: false,
  };
}

/**
 * After esbuild: every function gets gpt-tokenizer as its own file beside the bundle (shared/tokenizer.ts loads it
 * on first use through GW_TOKENIZER_MODULE), built the way scripts/build.ts builds it; the control-plane function
 * also serves the web console from `console/` (GW_CONSOLE_DIR), copied from dist/console, which is built first
 * when a fresh clone has none.
 */
function afterBundlingHooks(withConsole: boolean): NonNullable<BundlingOptions['commandHooks']> {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => [
      `"${inputDir}/node_modules/.bin/esbuild" "${inputDir}/node_modules/gpt-tokenizer/esm/main.js" --bundle --platform=node --target=${LAMBDA_BUNDLE.target} --format=esm --minify --legal-comments=none --log-level=warning --outfile="${outputDir}/gpt-tokenizer.mjs"`,
      ...(withConsole
        ? [
            // A fresh clone has no console build: make it (scripts/build-console.ts), then ship it beside the bundle.
            `if [ ! -f "${inputDir}/dist/console/index.html" ]; then (cd "${inputDir}" && node --import tsx scripts/build-console.ts); fi`,
            `cp -R "${inputDir}/dist/console" "${outputDir}/console"`,
          ]
        : []),
    ],
  };
}
