import { GatewayError, badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import { modelConfigs } from '../../observability/pricing/index.js';
import { shippedDataTimestamp } from '../../observability/pricing/default-prices.js';
import type { ControlPlaneRequest, ResourceHandler } from '../handler-types.js';
import type { RouteRegistrar } from '../handler-types.js';
import { canonicalProvider, catalogModel, catalogModels, catalogProviders } from './catalog.js';
import { reachableProviders } from './reachable.js';
import type { OpenAIModel } from './schemas.js';

/** Model ids may hold `/` (openrouter's `openai/gpt-4o`): the routes take up to this many segments for one. */
const MAX_MODEL_SEGMENTS = 4;

/** `prefix` with one to MAX_MODEL_SEGMENTS trailing segments (`{model}`, `{model_2}` …), and the model id they spell. */
function registerModelPaths(register: RouteRegistrar, prefix: string, handler: (call: ControlPlaneRequest, model: string) => ReturnType<ResourceHandler>): void {
  for (let count = 1; count <= MAX_MODEL_SEGMENTS; count++) {
    const names = Array.from({ length: count }, (_, i) => (i === 0 ? 'model' : `model_${i + 1}`));
    register('GET', `${prefix}/${names.map((name) => `{${name}}`).join('/')}`, (call) => handler(call, names.map((name) => call.params[name]).join('/')));
  }
}

function providerFilter(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const slug = canonicalProvider(value.replace(/^@/, ''));
  if (!slug) throw badRequest('invalid_provider', `Unknown provider '${value.slice(0, 100)}'`, 'provider');
  return slug;
}

function modelNotFound(model: string): GatewayError {
  return new GatewayError(404, 'model_not_found', `The model '${model.slice(0, 200)}' does not exist or is not reachable with this key`, { param: 'model' });
}

/**
 * `GET /v1/model-catalog[/{provider}/{model}]`: pricing and capabilities from the pricing chain, any gw key.
 * `GET /v1/models[/{model}]`: OpenAI's list format, the models of the providers the caller's workspace can reach
 * (its virtual keys and saved configs), every known model when it has neither.
 */
export function registerModelCatalogRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/model-catalog', async (call) => {
    const provider = providerFilter(call.request.query.provider);
    const capability = call.request.query.capability || undefined;
    const data = await catalogModels({ providers: provider ? [provider] : catalogProviders(), capability });
    return jsonResponse(200, { object: 'list', data, total: data.length });
  });

  registerModelPaths(register, '/v1/model-catalog/{provider}', async (call, model) => {
    const provider = canonicalProvider(call.params.provider.replace(/^@/, ''));
    const entry = provider ? await catalogModel(provider, model) : undefined;
    if (!entry) throw new GatewayError(404, 'not_found', `The model catalog has no model '${model.slice(0, 200)}' for provider '${call.params.provider.slice(0, 100)}'`);
    return jsonResponse(200, entry);
  });

  register('GET', '/v1/models', async (call) => {
    const providers = await providersFor(call, providerFilter(call.request.query.provider));
    const data: OpenAIModel[] = [];
    for (const provider of providers) {
      for (const id of await modelConfigs().modelIds(provider)) data.push({ id, object: 'model', created: catalogCreated(), owned_by: provider });
    }
    return jsonResponse(200, { object: 'list', data });
  });

  registerModelPaths(register, '/v1/models', async (call, model) => {
    const providers = await providersFor(call, providerFilter(call.request.query.provider));
    // `<provider>/<model>` picks the provider; otherwise the first reachable provider that has the model.
    const [first, ...rest] = model.split('/');
    const named = rest.length > 0 ? canonicalProvider(first) : undefined;
    const candidates: Array<[string, string]> = named && providers.includes(named) ? [[named, rest.join('/')]] : [];
    for (const provider of providers) candidates.push([provider, model]);
    for (const [provider, id] of candidates) {
      const ids = await modelConfigs().modelIds(provider);
      const found = ids.find((candidate) => candidate === id) ?? ids.find((candidate) => candidate.toLowerCase() === id.toLowerCase());
      if (found !== undefined) return jsonResponse(200, { id: found, object: 'model', created: catalogCreated(), owned_by: provider } satisfies OpenAIModel);
    }
    throw modelNotFound(model);
  });
}

/** OpenAI's `created` of a listed model: the date of the catalog data gw ships (it has no release date per model). */
function catalogCreated(): number {
  return shippedDataTimestamp();
}

/** The providers to list for this caller: those its workspace reaches (all known when none), then the filter. */
async function providersFor(call: ControlPlaneRequest, filter: string | undefined): Promise<string[]> {
  const reachable = await reachableProviders(call.principal.workspaceId);
  const providers = reachable.size > 0 ? [...reachable].sort() : catalogProviders();
  return filter === undefined ? providers : providers.filter((provider) => provider === filter);
}
