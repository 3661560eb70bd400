import OpenAI, { type ClientOptions } from 'openai';
import { controlPlane, fetchTransport, type ControlPlane } from './control-plane.js';
import { createHeaders, type GatewayParameters } from './headers.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787/v1';

export type GwClientOptions = GatewayParameters & {
  /** gw's URL, ending in /v1 (self-hosted or local); defaults to the local server. */
  baseURL?: string;
  /** The provider credential, sent as `Authorization: Bearer …`; leave it out with a virtual key or a config. */
  providerApiKey?: string;
  /** Any other option of the `openai` client (timeout, maxRetries, fetch, …). */
  openai?: Omit<ClientOptions, 'apiKey' | 'baseURL' | 'provider' | 'defaultHeaders'>;
};

/**
 * An `openai` client pointed at gw with gw's headers set, so `chat.completions.create`, `responses.create`
 * and streaming work unchanged, plus typed helpers for the control plane.
 */
export class GwClient extends OpenAI {
  readonly gwOptions: GwClientOptions;
  readonly prompts: ControlPlane['prompts'];
  readonly policies: ControlPlane['policies'];
  readonly virtualKeys: ControlPlane['virtualKeys'];
  readonly configs: ControlPlane['configs'];
  readonly apiKeys: ControlPlane['apiKeys'];
  readonly workspaces: ControlPlane['workspaces'];
  readonly logs: ControlPlane['logs'];
  readonly analytics: ControlPlane['analytics'];

  constructor(options: GwClientOptions) {
    const { baseURL = DEFAULT_BASE_URL, providerApiKey, openai, ...parameters } = options;
    const headers = createHeaders(parameters);
    super({
      ...openai,
      // The openai client insists on a key; without a provider credential none is sent at all.
      apiKey: providerApiKey ?? 'no-provider-key',
      baseURL,
      defaultHeaders: { ...headers, ...(providerApiKey === undefined ? { authorization: null } : {}) },
    });
    this.gwOptions = options;
    const controlHeaders = () => pick(headers, ['x-gw-api-key', 'x-gw-trace-id']);
    const api = controlPlane(fetchTransport(baseURL, controlHeaders, openai?.fetch as typeof fetch | undefined));
    this.prompts = api.prompts;
    this.policies = api.policies;
    this.virtualKeys = api.virtualKeys;
    this.configs = api.configs;
    this.apiKeys = api.apiKeys;
    this.workspaces = api.workspaces;
    this.logs = api.logs;
    this.analytics = api.analytics;
  }

  /** A client for some requests: per-request gw values (`traceId`, `metadata`, `config`, …) over this one's. */
  // The union keeps the override compatible with openai's own signature; gw's `provider` is a slug string.
  override withOptions(options: Partial<GwClientOptions> | Partial<ClientOptions>): this {
    const gwOptions = options as Partial<GwClientOptions>;
    const merged: GwClientOptions = { ...this.gwOptions, ...gwOptions, openai: { ...this.gwOptions.openai, ...gwOptions.openai } };
    return new GwClient(merged) as this;
  }
}

export function createClient(options: GwClientOptions): GwClient {
  return new GwClient(options);
}

function pick(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));
}
