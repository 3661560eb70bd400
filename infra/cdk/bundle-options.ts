import { readFileSync } from 'node:fs';
import { LAMBDA_NODE_MAJOR } from './lambda-node.js';

/**
 * How every Lambda is bundled, in one place: `npm run build` (scripts/build.ts, esbuild's API, with the plugins of
 * scripts/bundle-plugins.ts) derives its options from `LAMBDA_BUNDLE`, and the CDK app deploys what that build
 * writes (infra/cdk/app.ts), so the bundle that is measured is the bundle that is deployed. NodejsFunction's
 * options (nodejs-bundling.ts) follow it as far as its command line can. This module imports neither esbuild nor
 * aws-cdk-lib.
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
  // The embedded DuckDB of request logs (issue #32): a native module (a .node binding and libduckdb), which no
  // bundle can hold. Only the DuckDB log engine imports it, on first use (shared/observability/engine/duckdb/), and
  // a Lambda uses the AWS engine (GW_LOG_ENGINE defaults to `aws` there), so a Lambda never loads it.
  '@duckdb/node-api',
];

/**
 * Constants replaced at build time (esbuild `define`): gw's version as a literal, so shared/version.ts neither
 * inlines package.json (all of it: every dependency's name and range) nor reads it at a cold start.
 */
export function buildTimeDefines(): Record<string, string> {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return { __GW_VERSION__: JSON.stringify(version) };
}

/** Some dependencies are CommonJS and call require(): the ESM bundle gets one. */
export const REQUIRE_SHIM_BANNER =
  "import { createRequire as __gwCreateRequire } from 'node:module'; const require = __gwCreateRequire(import.meta.url);";

export const LAMBDA_BUNDLE = {
  platform: 'node',
  /** The Lambda runtime is nodejs24.x; nothing here needs more than Node 20 has, so local runs keep working. */
  target: `node${LAMBDA_NODE_MAJOR}`,
  format: 'esm',
  minify: true,
  /**
   * No source maps in what deploys (issue #44): they were ~6 MB per deployment that a production cold start never
   * read. `npm run build -- --source-maps` writes external .map files for debugging, and the CDK app builds with them
   * where the stack turns `sourceMaps` on (development by default), where NODE_OPTIONS=--enable-source-maps reads them.
   */
  sourcemap: false,
  legalComments: 'none',
  /** Prefer packages' ESM builds, which tree-shake. */
  mainFields: ['module', 'main'],
  banner: REQUIRE_SHIM_BANNER,
  external: LAMBDA_EXTERNALS,
  /** Every function's bundle is written as `<dir>/index.mjs`, so the handler is `index.handler`. */
  outputFile: 'index.mjs',
  /**
   * Code splitting: what the code loads with `import()` (price data, the S3 client, the tracer, OTLP export …)
   * becomes chunks beside index.mjs that a cold start does not parse. Chunks sit in the same folder, so files the
   * code resolves against `import.meta.url` (gpt-tokenizer.mjs, genai-prices.json) resolve the same from any chunk.
   */
  splitting: true,
  chunkNames: 'chunk-[hash]',
} as const;

/**
 * Size budget of what a cold start loads, in KiB: a function's minified `index.mjs` plus the chunks it imports
 * statically (without source maps, without the chunks and files loaded on first use); `npm run build` prints it
 * with the total of every chunk, and the bundle test (and `npm run build -- --check-budget`) fail above it. The aim
 * (issue #23) is 500 KiB, and every function but the control plane is held to it.
 * - gateway: 492 KiB measured (round 4, third pass; 485 KiB at issue #23). Out of its cold start since issue #23: the price data (genai-prices.json, read on
 *   first use), undici (upstream calls go through Node's own http/https agents: shared/gateway/http-pool.ts), zod
 *   (settings are read without it, shared/settings-fields.ts; config, guardrail and model-config schemas load with
 *   the first one parsed), the Secrets Manager client (first secret read), the semantic cache's vector index, the
 *   S3 client, X-Ray and the OTLP SDK (chunks), the Anthropic, Bedrock, Google and Vertex AI adapters (imported on
 *   their first request: shared/providers/registry.ts), and the dialects, pass-through endpoints, MCP gateway and
 *   prompt completions (handlers imported on their route's first request: shared/http/lazy-handler.ts). What
 *   remains is what a plain request runs: gw's own code ~180 KiB, @smithy/core ~116 KiB and the DynamoDB client.
 *   docs/deploy.md ("Bundles") has the measurements.
 * - control-plane: 1,081 KiB: the MCP client (~320 KiB), gw's own code, zod (every route validates its body).
 */
export const BUNDLE_BUDGET_KIB: Readonly<Record<string, number>> = {
  // The control plane: 1,152 KiB after round 4 (unknown-path 404s, number checks, log sorting, analytics caps);
  // 1,176 KiB after its third pass (SCIM workspace identities and their admin routes, batch fields on virtual keys).
  // 1,193 KiB after its fifth pass (endpoint moves of kept credentials in configs and deployments, key minting by the
  // maker's visibility, SCIM identity point reads, batch settings on integrations, media columns in analytics).
  // Not on a request's hot path: a control-plane cold start is an admin's call, not a model call.
  'control-plane': 1200,
  // The gateway is held to the 500 KiB aim again (round 4, third pass: 525.6 → 492.3 KiB): the OpenTelemetry API
  // and the span mapping load with the first OTLP export, Powertools Metrics with the first publish (after a
  // response), the guardrail checks with the first request that has one to run, the image-link fetcher with the
  // first Bedrock call that prepares one. Fourth pass: lease records and their reporting (crash-safe leases) took it
  // to 505.9 KiB; the AWS-operation table (test-only), the health check, semantic caching, OTLP export, the local
  // folder blob store and the terminal's request line now load on first use: 498.7 KiB. Fifth pass (#43, #47):
  // 502.2 KiB, over the aim by what the trust and provider audits added to every request's path: gw keys stripped
  // from every forwarded header (+1.2 KiB), output-token limits checked against 2^53 (+0.6), the providers' error
  // envelopes and cached-token fields (+0.6), DB_SSL against the endpoint at settings parse (+0.25). Held at 503
  // until the OpenAI-compatible catalogue (5.4 KiB, every row at a cold start) or the error readers load on first use.
  gateway: 503,
};

export const DEFAULT_BUNDLE_BUDGET_KIB = 500;

export function bundleBudgetKiB(functionName: string): number {
  return BUNDLE_BUDGET_KIB[functionName] ?? DEFAULT_BUNDLE_BUDGET_KIB;
}
