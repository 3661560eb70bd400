import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunctions, functionNames, TOKENIZER_FILE, type BuiltFunction } from '../../scripts/build.js';
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

  it('keeps each minified bundle within its size budget (aim: 500 KiB; see bundle-options.ts)', () => {
    const sizes = Object.fromEntries(built.map(({ name, bytes }) => [name, `${(bytes / 1024).toFixed(1)} KiB`]));
    for (const { name, bytes, byPackage } of built) {
      const top = byPackage.slice(0, 5).map(({ source, bytes: size }) => `${source} ${(size / 1024).toFixed(0)} KiB`).join(', ');
      expect(bytes, `${name} is ${sizes[name]} (budget ${bundleBudgetKiB(name)} KiB); largest parts: ${top}`).toBeLessThanOrEqual(bundleBudgetKiB(name) * 1024);
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

  it('ships gpt-tokenizer as its own file beside each bundle, loaded on first use, never inlined', async () => {
    for (const { name, file, byPackage } of built) {
      expect(byPackage.map(({ source }) => source), name).not.toContain('gpt-tokenizer');
      const tokenizer = (await import(pathToFileURL(join(file, '..', TOKENIZER_FILE)).href)) as { countTokens: (text: string) => number };
      expect(tokenizer.countTokens('hello world'), name).toBe(2);
    }
  });

  it('ships an external source map next to each bundle', () => {
    for (const { file } of built) {
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      expect(map.sources.some((source) => source.includes('functions/'))).toBe(true);
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
});

describe('the NodejsFunction bundling options', () => {
  it('are LAMBDA_BUNDLE: same target, format, minification, source maps, main fields, banner and externals, no Docker', () => {
    const options = nodejsBundlingOptions();
    expect(options).toMatchObject({
      target: LAMBDA_BUNDLE.target,
      format: OutputFormat.ESM,
      minify: true,
      sourceMap: true,
      mainFields: [...LAMBDA_BUNDLE.mainFields],
      banner: LAMBDA_BUNDLE.banner,
      externalModules: [...LAMBDA_EXTERNALS],
      bundleAwsSDK: true,
      forceDockerBundling: false,
      esbuildArgs: { '--legal-comments': 'none' },
    });
  });
});
