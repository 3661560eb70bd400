import { MOCK_CONTENT, MOCK_MODES, chatRequest, type MockMode } from '../mock/payloads.js';
import type { ProbeRequest, TimedResponse } from '../measure/http-probe.js';

/** Where the two paths go: the mock directly, or gw in front of the mock. */
export interface BenchEndpoints {
  gwUrl: string;
  mockUrl: string;
  /** The gw API key the bench uses for inference (see tenant.ts). */
  gwKey: string;
  /** The minimal Node proxy in front of the mock (the floor for any extra hop). */
  proxyUrl?: string;
  /** Portkey's open-source gateway in front of the same mock (bench/processes/portkey.ts), when it runs. */
  portkeyUrl?: string;
}

export const PROVIDER_TOKEN = 'sk-bench-provider-token';

export function mockBaseUrl(endpoints: BenchEndpoints, mode: MockMode): string {
  return `${endpoints.mockUrl}${MOCK_MODES[mode]}`;
}

/** The direct path: what a client would send to the provider itself. */
export function directChat(endpoints: BenchEndpoints, mode: MockMode, stream: boolean): ProbeRequest {
  return {
    url: new URL(`${mockBaseUrl(endpoints, mode)}/chat/completions`),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_TOKEN}` },
    body: Buffer.from(JSON.stringify(chatRequest(undefined, stream))),
  };
}

/** The same call through the minimal reference proxy, which forwards the path to the mock. */
export function proxyChat(endpoints: BenchEndpoints, mode: MockMode, stream: boolean): ProbeRequest {
  if (!endpoints.proxyUrl) throw new Error('the reference proxy is not running');
  const direct = directChat(endpoints, mode, stream);
  return { ...direct, url: new URL(`${endpoints.proxyUrl}${MOCK_MODES[mode]}/chat/completions`) };
}

/**
 * The same call through Portkey, routed by its documented headers. Its custom host replaces the provider's whole
 * base URL (for openai `https://api.openai.com/v1`) and the endpoint path `/chat/completions` is appended to it,
 * so the host is the mock's base URL as gw gets it: the mock serves `/chat/completions` at its root, without `/v1`.
 */
export function portkeyChat(endpoints: BenchEndpoints, mode: MockMode, stream: boolean): ProbeRequest {
  if (!endpoints.portkeyUrl) throw new Error('Portkey is not running');
  return {
    url: new URL(`${endpoints.portkeyUrl}/v1/chat/completions`),
    headers: {
      'content-type': 'application/json',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': mockBaseUrl(endpoints, mode),
      authorization: `Bearer ${PROVIDER_TOKEN}`,
    },
    body: Buffer.from(JSON.stringify(chatRequest(undefined, stream))),
  };
}

/** The same call through gw, routed by headers to the same mock. */
export function gwChat(endpoints: BenchEndpoints, mode: MockMode, stream: boolean, extraHeaders: Record<string, string> = {}, body?: unknown): ProbeRequest {
  return {
    url: new URL(`${endpoints.gwUrl}/v1/chat/completions`),
    headers: {
      'content-type': 'application/json',
      'x-gw-api-key': endpoints.gwKey,
      'x-gw-provider': 'openai',
      'x-gw-custom-host': mockBaseUrl(endpoints, mode),
      authorization: `Bearer ${PROVIDER_TOKEN}`,
      ...extraHeaders,
    },
    body: Buffer.from(JSON.stringify(body ?? chatRequest(undefined, stream))),
  };
}

/** A gw call whose routing comes only from `x-gw-config` (no provider headers). */
export function gwChatWithConfig(endpoints: BenchEndpoints, config: unknown, extraHeaders: Record<string, string> = {}, body?: unknown): ProbeRequest {
  return {
    url: new URL(`${endpoints.gwUrl}/v1/chat/completions`),
    headers: { 'content-type': 'application/json', 'x-gw-api-key': endpoints.gwKey, 'x-gw-config': JSON.stringify(config), ...extraHeaders },
    body: Buffer.from(JSON.stringify(body ?? chatRequest())),
  };
}

/** Checks a non-streamed answer: 2xx and the mock's content. Returns why it is wrong, or undefined. */
export function checkChatJson(response: TimedResponse): string | undefined {
  if (response.status < 200 || response.status >= 300) return `status ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`;
  try {
    const parsed = JSON.parse(response.body.toString('utf8')) as { choices?: Array<{ message?: { content?: unknown } }> };
    if (parsed.choices?.[0]?.message?.content !== MOCK_CONTENT) return `unexpected content: ${response.body.toString('utf8').slice(0, 300)}`;
  } catch {
    return `body is not JSON: ${response.body.toString('utf8').slice(0, 300)}`;
  }
  return undefined;
}

/** Checks a streamed answer: 2xx, every word of the mock's content in order, and a clean `[DONE]` end. */
export function checkChatStream(response: TimedResponse): string | undefined {
  if (response.status < 200 || response.status >= 300) return `status ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`;
  const text = response.body.toString('utf8');
  let content = '';
  let done = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice(6).trim();
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    try {
      const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }>; error?: unknown };
      if (chunk.error) return `stream carried an error event: ${data.slice(0, 300)}`;
      content += chunk.choices?.[0]?.delta?.content ?? '';
    } catch {
      return `stream event is not JSON: ${data.slice(0, 300)}`;
    }
  }
  if (!done) return 'stream ended without [DONE]';
  if (content !== MOCK_CONTENT) return `stream content differs: ${JSON.stringify(content.slice(0, 200))}`;
  return undefined;
}
