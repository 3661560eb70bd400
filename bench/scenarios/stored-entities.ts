import { jsonCall, sendOnce } from '../measure/http-probe.js';
import { chatRequest } from '../mock/payloads.js';
import type { HotPathScenario, ScenarioContext } from './hot-path.js';
import { PROVIDER_TOKEN, checkChatJson, mockBaseUrl } from './requests.js';
import { errorMessage, isMissingRoute, stringField } from './tenant.js';

/**
 * Requests that name something stored through the control plane instead of carrying it: a virtual key (the
 * provider credential and host come from gw) and a saved config (`x-gw-config: cfg-…`). Both are created in the
 * bench workspace with the admin key (`?workspace_id=`), then proven to route to the mock before anything is timed.
 */

function inWorkspace(context: ScenarioContext, path: string): string {
  const workspace = context.tenant.workspaceId ? `?workspace_id=${encodeURIComponent(context.tenant.workspaceId)}` : '';
  return `${context.endpoints.gwUrl}${path}${workspace}`;
}

/** A chat request with the tenant key and only the headers given (no provider, host or credential). */
function gwChatWith(context: ScenarioContext, headers: Record<string, string>) {
  return {
    url: new URL(`${context.endpoints.gwUrl}/v1/chat/completions`),
    headers: { 'content-type': 'application/json', 'x-gw-api-key': context.endpoints.gwKey, ...headers },
    body: Buffer.from(JSON.stringify(chatRequest())),
  };
}

/** Creates the entity; undefined when the route does not exist yet. */
async function create(context: ScenarioContext, path: string, body: unknown): Promise<string | undefined> {
  const created = await jsonCall(inWorkspace(context, path), 'POST', { 'x-gw-api-key': context.adminKey }, body);
  if (isMissingRoute(created)) return undefined;
  const id = stringField(created.json, 'id');
  if (created.status >= 300 || !id) throw new Error(`POST ${path} answered ${created.status}: ${JSON.stringify(created.json).slice(0, 500)}`);
  return id;
}

async function provenRequest(request: ReturnType<typeof gwChatWith>, what: string) {
  const first = await sendOnce(request);
  if (first.status !== 200) throw new Error(`a request with the ${what} answered ${first.status}: ${errorMessage(first.json)}`);
  return { request, check: checkChatJson };
}

export const virtualKeyScenario: HotPathScenario = {
  name: 'virtual key',
  async setup(context) {
    const id = await create(context, '/v1/virtual-keys', {
      name: 'bench virtual key',
      provider: 'openai',
      credential: PROVIDER_TOKEN,
      custom_host: mockBaseUrl(context.endpoints, 'fast'),
    });
    if (!id) return { unavailable: 'POST /v1/virtual-keys is not available yet' };
    return provenRequest(gwChatWith(context, { 'x-gw-virtual-key': id }), 'virtual key');
  },
};

export const savedConfigScenario: HotPathScenario = {
  name: 'saved config',
  async setup(context) {
    const id = await create(context, '/v1/configs', {
      name: 'bench saved config',
      config: { provider: 'openai', api_key: PROVIDER_TOKEN, custom_host: mockBaseUrl(context.endpoints, 'fast') },
    });
    if (!id) return { unavailable: 'POST /v1/configs is not available yet' };
    return provenRequest(gwChatWith(context, { 'x-gw-config': id }), 'saved config');
  },
};
