import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { buildFunctions, esbuildOptions, functionNames, PRICES_FILE, TOKENIZER_FILE, type BuiltFunction } from '../../scripts/build.js';
import { withoutInlineData, writePricesAsset } from '../../scripts/bundle-plugins.js';
import * as packagePrices from '../../shared/observability/pricing/default-prices.js';
import type { TokenCounts } from '../../shared/observability/pricing/usage-tokens.js';
import { bundleBudgetKiB, LAMBDA_BUNDLE, LAMBDA_EXTERNALS } from '../../infra/cdk/bundle-options.js';
import { nodejsBundlingOptions } from '../../infra/cdk/nodejs-bundling.js';
import { FUNCTION_TABLE } from '../../infra/cdk/function-table.js';

const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]);

describe('the Lambda bundles (npm run build, the same options the stack bundles with)', () => {
  let outRoot: string;
  let built: BuiltFunction[];
  beforeAll(async () => {
    outRoot = mkdtempSync(join(tmpdir(), 'gw-bundles-'));
    built = await buildFunctions(outRoot);
  }, 180_000);
  afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

  it('builds one bundle per function that has a handler, each a function of the table', () => {
    expect(built.map((fn) => fn.name).sort()).toEqual(functionNames().sort());
    expect(built.map((fn) => fn.name)).toEqual(expect.arrayContaining(['gateway', 'control-plane']));
    for (const { name } of built) expect(FUNCTION_TABLE.map((spec) => spec.name)).toContain(name);
  });

  it('keeps what a cold start loads (index.mjs and its static chunk imports) within its size budget (aim: 500 KiB; see bundle-options.ts)', () => {
    for (const { name, bytes, totalBytes, byPackage } of built) {
      const top = byPackage.slice(0, 5).map(({ source, bytes: size }) => `${source} ${(size / 1024).toFixed(0)} KiB`).join(', ');
      const sizes = `${(bytes / 1024).toFixed(1)} KiB cold, ${(totalBytes / 1024).toFixed(1)} KiB with every chunk`;
      expect(bytes, `${name} is ${sizes} (budget ${bundleBudgetKiB(name)} KiB); largest parts: ${top}`).toBeLessThanOrEqual(bundleBudgetKiB(name) * 1024);
      expect(bytes, name).toBeLessThanOrEqual(totalBytes);
    }
  });

  it('bundles the AWS SDK and leaves out only Node built-ins and the lazily loaded credential providers', () => {
    for (const { name, externalImports } of built) {
      const { staticImports, dynamicImports } = externalImports;
      expect(staticImports.filter((specifier) => !isBuiltin(specifier)), name).toEqual([]);
      expect(dynamicImports.filter((specifier) => !isBuiltin(specifier) && !LAMBDA_EXTERNALS.includes(specifier)), name).toEqual([]);
      expect(dynamicImports, name).toContain('@aws-sdk/credential-provider-sso');
    }
  });

  it('ships gpt-tokenizer as its own file beside each bundle, loaded on first use, never inlined', { timeout: 60_000 }, async () => {
    for (const { name, totalByPackage } of built) expect(totalByPackage.map(({ source }) => source), name).not.toContain('gpt-tokenizer');
    // One copy is imported (each is ~2.7 MiB to load); the others are the same bytes.
    const [first, ...others] = built.map(({ file }) => readFileSync(join(file, '..', TOKENIZER_FILE)));
    for (const [index, copy] of others.entries()) expect(copy.equals(first!), built[index + 1]!.name).toBe(true);
    const tokenizer = (await import(pathToFileURL(join(built[0]!.file, '..', TOKENIZER_FILE)).href)) as { countTokens: (text: string) => number };
    expect(tokenizer.countTokens('hello world')).toBe(2);
  });

  it('ships the price data as genai-prices.json beside each bundle, keeping only the calculator as code', () => {
    for (const { name, file, totalByPackage } of built) {
      const code = totalByPackage.find(({ source }) => source === '@pydantic/genai-prices')?.bytes ?? 0;
      expect(code, name).toBeLessThan(30 * 1024);
      const providers = JSON.parse(readFileSync(join(file, '..', PRICES_FILE), 'utf8')) as Array<{ id: string; models: unknown[] }>;
      expect(providers.map(({ id }) => id), name).toEqual(expect.arrayContaining(['openai', 'anthropic', 'google', 'aws']));
    }
  });

  it('ships no HTTP client library: upstream calls use the Node runtime\'s own http and https', () => {
    for (const { name, totalByPackage } of built) expect(totalByPackage.map(({ source }) => source), name).not.toContain('undici');
    for (const { name, file } of built) {
      const folder = join(file, '..');
      for (const script of readdirSync(folder).filter((entry) => entry.endsWith('.mjs') && entry !== TOKENIZER_FILE)) {
        // `AGFzbQ` is the base64 of the WebAssembly magic number `\0asm`: no inlined WebAssembly parser either.
        expect(readFileSync(join(folder, script), 'utf8').includes('AGFzbQ'), `${name}/${script}`).toBe(false);
      }
    }
  });

  it('leaves the price data, zod, the S3, Secrets Manager and STS clients, X-Ray, the OpenTelemetry API and SDK and Powertools Metrics out of the gateway\'s cold start (loaded on first use)', () => {
    const gateway = built.find(({ name }) => name === 'gateway')!;
    const cold = gateway.byPackage.map(({ source }) => source);
    const lazy = [
      '@pydantic/genai-prices', 'zod', '@aws-sdk/client-s3', '@aws-sdk/client-secrets-manager', '@aws-sdk/client-sts', 'lru-cache', 'aws-xray-sdk-core',
      '@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@aws-lambda-powertools/metrics',
    ];
    for (const source of lazy) expect(cold, source).not.toContain(source);
    expect(gateway.totalByPackage.map(({ source }) => source)).toEqual(expect.arrayContaining(['@pydantic/genai-prices', '@aws-sdk/client-s3', '@aws-sdk/client-sts']));
    expect(gateway.coldFiles[0]).toBe(gateway.file);
  });

  it('keeps the native DuckDB package out of every bundle, and the DuckDB log engine out of the gateway\'s cold start', () => {
    for (const { name, totalByPackage, externalImports } of built) {
      expect(totalByPackage.map(({ source }) => source), name).not.toContain('@duckdb/node-api');
      expect(externalImports.staticImports, name).not.toContain('@duckdb/node-api');
    }
    const gateway = built.find(({ name }) => name === 'gateway')!;
    for (const source of ['shared/observability/engine/duckdb/engine.ts', 'shared/observability/engine/duckdb/journal-sink.ts']) expect(gateway.coldOwnSources, source).not.toContain(source);
  });

  it('loads the inbound dialects, pass-through endpoints, MCP gateway, prompt completions, schemas, vector index and secrets client on first use, not at a cold start', () => {
    const gateway = built.find(({ name }) => name === 'gateway')!;
    const lazy = [
      'shared/dialects/responses/codec.ts',
      'shared/dialects/anthropic-messages/codec.ts',
      'shared/dialects/schemas.ts',
      'shared/dialects/edge.ts',
      'shared/gateway/native-attempt.ts',
      'shared/dialects/responses/response-repository.ts',
      'shared/dialects/anthropic-messages/count-tokens-route.ts',
      'shared/gateway/passthrough/forward.ts',
      'shared/gateway/passthrough/schemas.ts',
      'shared/mcp/gateway.ts',
      'shared/gateway/prompt-completions.ts',
      // Schemas (zod) load with the first config, guardrail or model-config document parsed.
      'shared/gateway/config/schema.ts',
      'shared/guardrails/schemas.ts',
      'shared/observability/pricing/config-document-schemas.ts',
      // The semantic cache's index with its first lookup; the Secrets Manager store with the first secret read.
      'shared/gateway/cache/vector-index/dynamo-vector-index.ts',
      'shared/store/secrets/secrets-manager-secret-store.ts',
      // STS and its credential cache with the first Bedrock call through a virtual key that names a role.
      'shared/gateway/assumed-role.ts',
      // Round 4's providers with their first request (registry.ts), and the files and batches with their first route.
      ...['replicate', 'stability-ai', 'elevenlabs', 'deepgram', 'watsonx', 'cohere', 'voyage-ai', 'jina-ai'].map((provider) => `shared/providers/${provider}/adapter.ts`),
      'shared/gateway/batches/files.ts',
      'shared/gateway/batches/batches.ts',
      // The image-link fetcher with the first provider that prepares its call (Bedrock); guardrail checks with the
      // first request that has one to run; OTLP spans with the first export.
      'shared/gateway/remote-media.ts',
      'shared/gateway/guardrail-judge.ts',
      'shared/guardrails/run.ts',
      'shared/observability/otlp-spans.ts',
    ];
    for (const source of lazy) expect(gateway.coldOwnSources, source).not.toContain(source);
    expect(gateway.coldOwnSources).toEqual(expect.arrayContaining(['shared/gateway/app.ts', 'shared/dialects/registry.ts', 'shared/gateway/passthrough/paths.ts']));
    expect(gateway.byPackage.map(({ source }) => source)).not.toContain('mustache');
  });

  it('ships no source map (dead weight: ~6 MB a deployment that no production cold start reads)', () => {
    for (const { name, file } of built) {
      const folder = join(file, '..');
      expect(readdirSync(folder).filter((entry) => entry.endsWith('.map')), name).toEqual([]);
      expect(readFileSync(file, 'utf8'), name).not.toContain('sourceMappingURL');
    }
  });

  it('loads each bundle in a fresh Node process and finds its handler', () => {
    for (const { name, file } of built) {
      const script = `
        globalThis.awslambda = { streamifyResponse: (fn) => fn, HttpResponseStream: { from: (stream) => stream } };
        const module = await import(${JSON.stringify(pathToFileURL(file).href)});
        process.stdout.write(typeof module.handler);`;
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        encoding: 'utf8',
      });
      expect(result.stderr, name).toBe('');
      expect(result.stdout, name).toBe('function');
    }
  });

  it('reads no source map at a cold start, even with --enable-source-maps (there are none to read)', () => {
    // The stack sets NODE_OPTIONS=--enable-source-maps only where `sourceMaps` is on (test/infra/operability.test.ts),
    // and builds with maps only there (infra/cdk/app.ts); `npm run build` writes none.
    for (const { name, file } of built) {
      const folder = join(file, '..');
      const modules = readdirSync(folder).filter((entry) => entry.endsWith('.mjs')).map((entry) => join(folder, entry));
      const script = `
        import { findSourceMap } from 'node:module';
        globalThis.awslambda = { streamifyResponse: (fn) => fn, HttpResponseStream: { from: (stream) => stream } };
        await import(${JSON.stringify(pathToFileURL(file).href)});
        const loaded = ${JSON.stringify(modules)}.filter((path) => findSourceMap(path) !== undefined);
        process.stdout.write(JSON.stringify(loaded.map((path) => path.split('/').pop())));`;
      const run = (nodeOptions?: string) => {
        const env: Record<string, string> = { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
        if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
        const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
        expect(result.stderr, name).toBe('');
        return JSON.parse(result.stdout) as string[];
      };
      expect(run(), name).toEqual([]);
      expect(run('--enable-source-maps'), name).toEqual([]);
    }
  });

  it('carries gw\'s version as a literal, not gw\'s package.json', () => {
    const { version, description } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; description: string };
    for (const { name, file } of built) {
      const folder = join(file, '..');
      const code = readdirSync(folder).filter((entry) => entry.endsWith('.mjs') && entry !== TOKENIZER_FILE).map((entry) => readFileSync(join(folder, entry), 'utf8')).join('\n');
      expect(code.includes(description), `${name} inlines package.json`).toBe(false);
      if (name === 'gateway') expect(code.includes(JSON.stringify(version)), 'the gateway has the version').toBe(true);
    }
  });
});

type Probe = typeof import('./fixtures/bundle-probe.js');

describe('the bundled code the plugins change (a probe built with the Lambda bundle options)', () => {
  let outRoot: string;
  let probe: Probe;
  beforeAll(async () => {
    outRoot = mkdtempSync(join(tmpdir(), 'gw-probe-'));
    const withFiles = join(outRoot, 'with-files');
    await build(esbuildOptions(join(import.meta.dirname, 'fixtures', 'bundle-probe.ts'), withFiles));
    await writePricesAsset(join(withFiles, PRICES_FILE));
    probe = (await import(pathToFileURL(join(withFiles, LAMBDA_BUNDLE.outputFile)).href)) as Probe;
  }, 120_000);
  afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

  it('streams an HTTP/1.1 response through the bundled upstream pool', async () => {
    expect(await probe.fetchThroughBundledPool()).toEqual({ status: 200, header: '/probe?x=1', body: 'data: one\n\ndata: two\n\n' });
  });

  it('prices every model of every priced provider exactly as the package with its inline data does', async () => {
    const bundled = await probe.shippedPrices();
    const usages: Array<Partial<TokenCounts>> = [
      { input: 1_000, output: 500 },
      { input: 1_000_000, output: 1_000_000 },
      // Past the long-context tiers (200k, 272k prompt tokens …), with cache reads and writes and reasoning.
      { input: 450_000, cachedInput: 120_000, cacheWrite: 30_000, output: 40_000, reasoning: 10_000 },
    ];
    let compared = 0;
    for (const provider of packagePrices.PRICED_PROVIDER_SLUGS) {
      const ids = packagePrices.defaultModelIds(provider);
      expect(bundled.defaultModelIds(provider), provider).toEqual(ids);
      for (const model of [...ids, `${ids[0] ?? 'none'}-2025-01-01`, 'no-such-model']) {
        expect(bundled.defaultCapabilities(provider, model), `${provider} ${model}`).toEqual(packagePrices.defaultCapabilities(provider, model));
        const [ours, theirs] = [bundled.defaultPrice(provider, model), packagePrices.defaultPrice(provider, model)];
        expect(ours?.source, `${provider} ${model}`).toBe(theirs?.source);
        for (const usage of usages) {
          const counts = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0, ...usage };
          const tokens = { ...counts, total: counts.input + counts.output };
          expect(ours?.cost(tokens), `${provider} ${model} ${JSON.stringify(usage)}`).toBe(theirs?.cost(tokens));
        }
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('fails a price lookup with a message naming the missing genai-prices.json, never as "no price"', async () => {
    const withFiles = join(outRoot, 'with-files');
    const without = join(outRoot, 'without-prices');
    mkdirSync(without);
    for (const entry of readdirSync(withFiles).filter((name) => name !== PRICES_FILE)) copyFileSync(join(withFiles, entry), join(without, entry));
    const incomplete = (await import(pathToFileURL(join(without, LAMBDA_BUNDLE.outputFile)).href)) as Probe;
    await expect(incomplete.shippedPrices()).rejects.toThrow(/genai-prices\.json \(the price data of @pydantic\/genai-prices\) must sit beside the bundle/);
  });

  it('refuses to build when the package no longer starts with its data literal', () => {
    expect(() => withoutInlineData('export const prices = loadPrices();')).toThrow(/update scripts\/bundle-plugins\.ts/);
    expect(withoutInlineData('const E = [\n  { id: "x" }\n], J = {};\nexport { E };')).toMatch(/^import \{ readFileSync as __gwReadFileSync \} from 'node:fs';\nconst E = \(\(\) => \{.*\}\)\(\), J = \{\};\nexport \{ E \};$/s);
  });
});

describe('the NodejsFunction bundling options', () => {
  it('are LAMBDA_BUNDLE: same target, format, minification, source maps, main fields, banner and externals, no Docker', () => {
    const options = nodejsBundlingOptions();
    expect(options).toMatchObject({
      target: LAMBDA_BUNDLE.target,
      format: OutputFormat.ESM,
      minify: true,
      sourceMap: false,
      mainFields: [...LAMBDA_BUNDLE.mainFields],
      banner: LAMBDA_BUNDLE.banner,
      externalModules: [...LAMBDA_EXTERNALS],
      bundleAwsSDK: true,
      forceDockerBundling: false,
      esbuildArgs: { '--legal-comments': 'none' },
    });
  });
});
