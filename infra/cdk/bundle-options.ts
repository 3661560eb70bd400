/**
 * How every Lambda is bundled, in one place: `npm run build` (scripts/build.ts, esbuild's API) and the CDK stack
 * (NodejsFunction, esbuild's CLI) both derive their options from `LAMBDA_BUNDLE`, so the bundle that is measured
 * is the bundle that is deployed. This module imports neither esbuild nor aws-cdk-lib.
 */

/**
 * Packages left out of the bundle. Only the AWS SDK's non-environment credential providers: the SDK's default
 * chain loads them with a dynamic `import()` only after the environment provider found nothing, and in Lambda
 * the runtime always sets AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, so they are never
 * loaded (and the nodejs24.x runtime ships them should that ever change). Together they are ~130 KiB of every
 * bundle (SSO, STS, IMDS, INI-file clients). The SDK itself stays bundled: measured, a bundled SDK loads about
 * twice as fast as the runtime's copy (see docs/deploy.md, "Bundles").
 */
export const LAMBDA_EXTERNALS: readonly string[] = [
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@smithy/credential-provider-imds',
];

/** Some dependencies are CommonJS and call require(): the ESM bundle gets one. */
export const REQUIRE_SHIM_BANNER =
  "import { createRequire as __gwCreateRequire } from 'node:module'; const require = __gwCreateRequire(import.meta.url);";

export const LAMBDA_BUNDLE = {
  platform: 'node',
  /** The Lambda runtime is nodejs24.x; nothing here needs more than Node 20 has, so local runs keep working. */
  target: 'node24',
  format: 'esm',
  minify: true,
  /** External .map files: they do not count against the bundle and let NODE_OPTIONS=--enable-source-maps work. */
  sourcemap: true,
  legalComments: 'none',
  /** Prefer packages' ESM builds, which tree-shake. */
  mainFields: ['module', 'main'],
  banner: REQUIRE_SHIM_BANNER,
  external: LAMBDA_EXTERNALS,
  /** Every function's bundle is written as `<dir>/index.mjs`, so the handler is `index.handler`. */
  outputFile: 'index.mjs',
} as const;

/**
 * Size budget of each minified bundle (index.mjs, without its source map), in KiB; the bundle test (and
 * `npm run build -- --check-budget`) fail above it. The aim is 500 KiB per function, and the scheduled functions are held to it. The API
 * functions are budgeted at what they measure once zod is imported as a namespace (`import * as z from 'zod'`,
 * which lets esbuild drop ~350 KiB of zod locales and unused API from every bundle), plus a little headroom,
 * because of packages DESIGN.md chose:
 * - gateway: @pydantic/genai-prices (~470 KiB of price data compiled into JavaScript, imported on first use so it
 *   stays out of the cold start) and undici's pooling core (~290 KiB even imported module by module: its entry,
 *   ~520 KiB, cannot be tree-shaken, see shared/gateway/undici-core.ts);
 * - control-plane: ~210 KiB of gw's own code, ~80 KiB of it provider transforms reached through the registry.
 * The measurements and what would bring them down are in docs/deploy.md ("Bundles").
 */
export const BUNDLE_BUDGET_KIB: Readonly<Record<string, number>> = {
  // Round 2 added dialect codecs, observability (S3 client, OTLP export), guardrails, MCP and pass-through.
  // gpt-tokenizer's vocabulary (~2,700 KiB) is not counted: it is its own file beside the bundle, loaded on first
  // use (shared/tokenizer.ts). Issue #23 (performance) brings the rest down.
  gateway: 1900,
  // The MCP client (~320 KiB), the pricing data for the model catalog (~470 KiB), undici for MCP handshakes
  // (~290 KiB), the S3 client for exports.
  'control-plane': 2250,
  'expire-api-keys': 500,
  // Replays the durable charge journal: the enforcement and settlement code comes with it.
  'restore-budgets': 650,
};

export const DEFAULT_BUNDLE_BUDGET_KIB = 500;

export function bundleBudgetKiB(functionName: string): number {
  return BUNDLE_BUDGET_KIB[functionName] ?? DEFAULT_BUNDLE_BUDGET_KIB;
}
