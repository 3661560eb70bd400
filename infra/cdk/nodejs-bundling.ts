import { LogLevel, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LAMBDA_BUNDLE } from './bundle-options.js';

/**
 * LAMBDA_BUNDLE expressed as NodejsFunction bundling options: the same esbuild settings `npm run build` uses,
 * run by the project's own esbuild (never Docker).
 */
export function nodejsBundlingOptions(): BundlingOptions {
  return {
    target: LAMBDA_BUNDLE.target,
    format: LAMBDA_BUNDLE.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
    minify: LAMBDA_BUNDLE.minify,
    sourceMap: LAMBDA_BUNDLE.sourcemap,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: LAMBDA_BUNDLE.banner,
    // Keeps the AWS SDK in the bundle (NodejsFunction would otherwise leave all of @aws-sdk/* to the runtime).
    bundleAwsSDK: true,
    externalModules: [...LAMBDA_BUNDLE.external],
    esbuildArgs: { '--legal-comments': LAMBDA_BUNDLE.legalComments },
    logLevel: LogLevel.WARNING,
    forceDockerBundling: false,
  };
}
