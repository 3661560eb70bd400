import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { ComponentRegistry, componentNameOf, inlineSchema, refTo, type JsonSchema } from './components.js';
import { GATEWAY_REQUEST_HEADERS } from '../../shared/gateway/request-headers-doc.js';
import { gatewayOperations } from './gateway-operations.js';
import { loadSchemaModules, parseOperations } from './modules.js';
import type { ParsedOpenApiOperation } from '../../shared/control-plane/openapi-operation.js';

type Method = ParsedOpenApiOperation['method'];
const METHOD_ORDER: Method[] = ['get', 'post', 'put', 'patch', 'delete'];

export const errorResponseSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().meta({ description: 'OpenAI-compatible error type, e.g. invalid_request_error, authentication_error, not_found_error.' }),
      code: z.string().meta({ description: 'gw’s machine-readable code, e.g. invalid_request, missing_scope, not_found, feature_disabled.' }),
      param: z.string().nullable().meta({ description: 'The field, query parameter or header at fault, as a path like conditions[0].key.' }),
      provider_error: z.unknown().optional().meta({ description: 'The provider’s original error body, for errors that came from upstream.' }),
    }),
    status: z.literal('failure'),
  })
  .meta({ description: 'Every error gw answers has this shape.' });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid; the message names the field and the rule.',
  401: 'No API key, or an invalid, revoked or expired one.',
  403: 'The key lacks the scope this route needs.',
  404: 'Not found, or not visible to the caller (another workspace’s resources are 404, never 403).',
  408: 'The upstream call timed out.',
  409: 'Conflict with the resource’s current state.',
  412: 'A budget or usage limit is exhausted.',
  413: 'The body is too large.',
  429: 'Rate limited; see retry-after.',
  502: 'The upstream failed.',
  503: 'The upstream is unavailable.',
  504: 'The upstream did not answer in time.',
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Gateway: 'Inference calls forwarded to model providers.',
  Policies: 'Rate-limit and usage-limit policies (docs/control-plane/policies.md).',
};

/** Builds the whole OpenAPI 3.1 document from the zod schemas under shared/ and the gateway's endpoints. */
export async function buildOpenApiDocument(root: string): Promise<Record<string, unknown>> {
  const modules = await loadSchemaModules(root);
  const components = new ComponentRegistry();
  components.add(errorResponseSchema, 'ErrorResponse', '');
  for (const module of modules) {
    const qualifier = componentNameOf(module.name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase()));
    for (const { exportName, schema } of module.schemas) {
      const base = componentNameOf(exportName);
      components.add(schema, module.componentPrefix && base === 'Config' ? module.componentPrefix : `${module.componentPrefix}${base}`, qualifier);
    }
  }

  const operations = [...gatewayOperations.map((operation) => parseOperations('gateway', { openApiOperations: [operation] })[0]), ...modules.flatMap((module) => module.operations)];
  const undocumented = await undocumentedRoutes(root, operations);
  operations.push(...undocumented);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const path = (paths[operation.path] ??= {});
    if (path[operation.method]) throw new Error(`${operation.method.toUpperCase()} ${operation.path} is documented twice`);
    path[operation.method] = toOperationObject(operation, components);
    if (undocumented.includes(operation)) (path[operation.method] as Record<string, unknown>)['x-gw-undocumented'] = true;
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((path) => [path, Object.fromEntries(METHOD_ORDER.filter((method) => paths[path][method]).map((method) => [method, paths[path][method]]))]),
  );
  const tags = [...new Set(operations.flatMap((operation) => operation.tags))].sort();
  const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

  return {
    openapi: '3.1.0',
    info: {
      title: 'gw API',
      version: packageJson.version,
      description: 'gw, a serverless AI gateway: the OpenAI-compatible gateway endpoints and the control plane. Generated from the zod schemas by scripts/openapi.ts; do not edit by hand.',
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'npm start (local runtime)' }],
    security: [{ ApiKey: [] }],
    tags: tags.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
    paths: sortedPaths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-gw-api-key', description: 'A gw API key.' },
        Jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Control-plane reads only: a JWT grants read and list scopes.' },
      },
      schemas: components.toSchemas(),
    },
  };
}

function toOperationObject(operation: ParsedOpenApiOperation, components: ComponentRegistry): Record<string, unknown> {
  const notes: string[] = [];
  if (operation.scopes.length) notes.push(`Scope: ${operation.scopes.join(' or ')}.`);
  if (operation.featureFlags.length) notes.push(`Answers 404 feature_disabled when ${operation.featureFlags.join(' or ')} is OFF.`);
  const description = [operation.description, ...notes].filter(Boolean).join('\n\n');
  const parameters = [
    ...parametersOf(operation.pathParameters, 'path'),
    ...parametersOf(operation.query, 'query'),
    ...operation.headers.map((header) => ({ name: header.name, in: 'header', required: header.required, description: header.description, schema: withoutDescription(inlineSchema(header.schema)) })),
  ];
  const object: Record<string, unknown> = { operationId: operation.operationId, summary: operation.summary };
  if (description) object.description = description;
  object.tags = operation.tags;
  if (operation.security === 'none') object.security = [];
  else if (operation.method === 'get' && !operation.tags.includes('Gateway')) object.security = [{ ApiKey: [] }, { Jwt: [] }];
  if (parameters.length) object.parameters = parameters;
  if (operation.body) {
    const name = components.add(operation.body, `${componentNameOf(operation.operationId)}Request`, '');
    object.requestBody = {
      required: true,
      ...(operation.bodyDescription ? { description: operation.bodyDescription } : {}),
      content: { [operation.bodyContentType]: { schema: refTo(name) } },
    };
  }
  const responses: Record<string, unknown> = {};
  for (const status of Object.keys(operation.responses).sort()) {
    const response = operation.responses[status];
    const content: Record<string, unknown> = {};
    if (response.schema) content[response.contentType] = { schema: refTo(components.add(response.schema, `${componentNameOf(operation.operationId)}${status}Response`, '')) };
    for (const alternative of response.alternatives) {
      content[alternative.contentType] = { schema: inlineSchema(alternative.schema), ...(alternative.description ? { description: alternative.description } : {}) };
    }
    responses[status] = {
      description: response.description,
      ...(response.headers.length ? { headers: Object.fromEntries(response.headers.map((header) => [header.name, { description: header.description, schema: { type: 'string' } }])) } : {}),
      ...(Object.keys(content).length ? { content } : {}),
    };
  }
  for (const status of [...new Set(operation.errors)].sort()) {
    const flagNote = status === 404 && operation.featureFlags.length ? ` Also when ${operation.featureFlags.join(' or ')} is OFF (code feature_disabled).` : '';
    responses[String(status)] = {
      description: `${ERROR_DESCRIPTIONS[status] ?? 'Error.'}${flagNote}`,
      content: { 'application/json': { schema: refTo('ErrorResponse') } },
    };
  }
  object.responses = responses;
  if (operation.scopes.length) object['x-gw-scopes'] = operation.scopes;
  if (operation.featureFlags.length) object['x-gw-feature-flags'] = operation.featureFlags;
  return object;
}

function parametersOf(schema: z.ZodObject | undefined, location: 'path' | 'query'): Array<Record<string, unknown>> {
  if (!schema) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, property]) => {
    const description = property.description;
    return {
      name,
      in: location,
      required: location === 'path' || !property.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: withoutDescription(inlineSchema(property)),
    };
  });
}

function withoutDescription(schema: JsonSchema): JsonSchema {
  const { description: _description, ...rest } = schema;
  return rest;
}

/**
 * Routes that exist but that no descriptor documents: control-plane routes registered on the router and gateway
 * paths of shared/gateway/edge-routes.ts. They are listed all the same (flagged `x-gw-undocumented`), so the document
 * always names every route and a new route shows up in the CI check.
 */
async function undocumentedRoutes(root: string, documented: ParsedOpenApiOperation[]): Promise<ParsedOpenApiOperation[]> {
  const { registerResourceRoutes } = (await import(pathToFileURL(join(root, 'shared/control-plane/routes.ts')).href)) as {
    registerResourceRoutes: (register: (method: string, pattern: string, handler: unknown) => void) => void;
  };
  const { GATEWAY_PATHS } = (await import(pathToFileURL(join(root, 'shared/gateway/edge-routes.ts')).href)) as { GATEWAY_PATHS: readonly string[] };
  const known = new Set(documented.map((operation) => `${operation.method} ${operation.path}`));
  const found: ParsedOpenApiOperation[] = [];
  const add = (method: string, pattern: string, gateway: boolean) => {
    const lower = method.toLowerCase() as Method;
    if (known.has(`${lower} ${pattern}`) || !METHOD_ORDER.includes(lower)) return;
    known.add(`${lower} ${pattern}`);
    found.push(minimalOperation(lower, pattern, gateway));
  };
  registerResourceRoutes((method, pattern) => add(method, pattern, false));
  // A gateway path no descriptor documents at all is listed as a POST; one with documented methods is left as is.
  for (const path of GATEWAY_PATHS) if (!documented.some((operation) => operation.path === path)) add('post', path, true);
  return found;
}

function minimalOperation(method: Method, pattern: string, gateway: boolean): ParsedOpenApiOperation {
  const resource = pattern.split('/').filter(Boolean)[1] ?? 'control-plane';
  const words = (text: string) => text.replace(/[{}]/g, '').split(/[/_-]/).filter(Boolean);
  const operationId = `${method}${words(pattern).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('')}`;
  const pathNames = [...pattern.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  return parseOperations('router', {
    openApiOperations: [
      {
        method,
        path: pattern,
        operationId,
        summary: `${method.toUpperCase()} ${pattern}`,
        description: gateway ? 'A gateway endpoint not documented in detail yet.' : `Not documented in detail yet: add shared/control-plane/${resource}/openapi.ts.`,
        tags: [gateway ? 'Gateway' : words(resource).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join(' ')],
        pathParameters: pathNames.length ? z.object(Object.fromEntries(pathNames.map((name) => [name, z.string()]))) : undefined,
        headers: gateway ? GATEWAY_REQUEST_HEADERS : [],
        scopes: gateway ? ['completions:write'] : [],
        responses: { default: { description: 'See the documentation under docs/.' } },
        errors: [400, 401, 403, 404],
      },
    ],
  })[0];
}
