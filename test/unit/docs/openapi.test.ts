import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateOpenApiYaml, OPENAPI_FILE } from '../../../scripts/openapi.js';
import { registerPolicyRoutes } from '../../../shared/control-plane/policies/routes.js';
import { GATEWAY_PATHS } from '../../../shared/gateway/edge-routes.js';

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; in: string }>; 'x-gw-undocumented'?: boolean; 'x-gw-feature-flags'?: string[] }>>;
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, Record<string, unknown>> }> };
}

let fresh: string;
let document: OpenApiDocument;
beforeAll(async () => {
  fresh = await generateOpenApiYaml();
  document = parse(fresh) as OpenApiDocument;
});

describe('docs/openapi.yaml', () => {
  // The CI check: a schema change without `npm run openapi` fails here.
  it('is current: the committed file equals a fresh generation from the zod schemas', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(fresh);
  });

  it('is generated the same way twice', async () => {
    expect(await generateOpenApiYaml()).toBe(fresh);
  });

  it('is OpenAPI 3.1 whose every $ref names a component', () => {
    expect(document.openapi).toBe('3.1.0');
    const refs = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, entry] of Object.entries(value)) {
          if (key === '$ref') refs.add(String(entry));
          else walk(entry);
        }
      }
    };
    walk(document);
    expect(refs.size).toBeGreaterThan(10);
    for (const ref of refs) expect(Object.keys(document.components.schemas)).toContain(ref.replace('#/components/schemas/', ''));
  });

  it('declares every path parameter of every path', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(operations)) {
        expect((operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name)).toEqual(names);
      }
    }
  });

  it('documents every policy route in detail, with its feature flag', () => {
    const routes: string[] = [];
    registerPolicyRoutes((method, pattern) => routes.push(`${method.toLowerCase()} ${pattern}`));
    expect(routes).toHaveLength(11);
    for (const route of routes) {
      const [method, path] = route.split(' ');
      const operation = document.paths[path]?.[method];
      expect(operation, route).toBeDefined();
      expect(operation['x-gw-undocumented'], route).toBeUndefined();
      expect(operation['x-gw-feature-flags'], route).toContain('POLICY_ENABLED');
    }
    expect(document.paths['/v1/policies/usage-limits'].post['x-gw-feature-flags']).toEqual(['POLICY_ENABLED', 'USAGE_LIMITS_ENABLED']);
  });

  it('documents every gateway path, and every inference endpoint with the x-gw headers', () => {
    for (const path of GATEWAY_PATHS) expect(Object.keys(document.paths[path] ?? {}).length, path).toBeGreaterThan(0);
    const inference = ['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/prompts/{promptId}/completions', '/v1/responses', '/v1/messages'];
    for (const path of inference) {
      const operation = document.paths[path]?.post;
      expect(operation, path).toBeDefined();
      const headers = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
      expect(headers).toEqual(expect.arrayContaining(['x-gw-provider', 'x-gw-virtual-key', 'x-gw-config', 'x-gw-custom-host', 'x-gw-trace-id', 'x-gw-metadata', 'x-gw-cache-force-refresh', 'x-gw-cache-namespace', 'x-gw-request-timeout', 'x-gw-forward-headers']));
    }
  });

  it('carries the policy payload rules of the zod schemas', () => {
    const create = document.components.schemas.CreateRateLimitPolicy;
    expect(create.required).toEqual(['conditions', 'group_by', 'type', 'unit', 'value']);
    expect(create.properties?.conditions).toMatchObject({ type: 'array', minItems: 1 });
    expect(create.properties?.unit).toMatchObject({ enum: ['rpm', 'rph', 'rpd'] });
    expect(create.properties?.value).toMatchObject({ type: 'number', exclusiveMinimum: 0 });
    expect(create.properties?.name).toMatchObject({ maxLength: 255 });
    expect(document.components.schemas.CreateUsageLimitPolicy.required).toContain('credit_limit');
  });
});

describe('scripts/openapi.ts --check', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'gw-openapi-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('exits 1 naming the file when it is stale', async () => {
    const stale = join(directory, 'openapi.yaml');
    writeFileSync(stale, fresh.replace('gw API', 'gw API (old)'));
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/openapi.ts', '--check', '--file', stale]);
    await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining(`${stale} is out of date with the zod schemas`) });
  });
});
