import { rowBaseUrl } from './account-host.js';
import { ENDPOINT_PATHS, type AdapterInput, type ProviderAdapter, type UpstreamCall } from '../types.js';
import type { OpenAICompatibleProvider } from './catalog.js';
import { summariseOpenAIStyleError } from './error-summary.js';
import { OpenAISseTranslator } from './stream.js';
import { cachedTokensFrom, withUsageFixed } from './usage-fields.js';
import { merged } from '../../merged.js';

/** Builds the adapter for one catalog row: the body goes through untouched, the token as a Bearer header. */
export function openAICompatibleAdapter(row: OpenAICompatibleProvider): ProviderAdapter {
  const fixUsage = row.cachedTokensField ? cachedTokensFrom(row.cachedTokensField) : undefined;
  const adapter: ProviderAdapter = {
    slug: row.slug,
    aliases: row.aliases ?? [],
    endpoints: row.endpoints,
    buildCall(input: AdapterInput): UpstreamCall {
      const base = rowBaseUrl(row, input.target);
      const body = { ...input.body };
      if (input.stream && input.endpoint !== 'embeddings' && row.acceptsStreamOptions) {
        const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
        // gw always asks for usage so it can meter the stream; the pipeline strips it if the client did not ask.
        body.stream_options = merged(options, { include_usage: true });
      }
      const headers: Record<string, string> = merged(input.forwardHeaders, { 'content-type': 'application/json' });
      if (input.stream) headers.accept = 'text/event-stream';
      if (input.target.apiKey) Object.assign(headers, authHeaders(row, input.target.apiKey));
      return { url: withQuery(joinUrl(base, ENDPOINT_PATHS[input.endpoint]), row.query), headers, body: JSON.stringify(body) };
    },
    toOpenAIError: summariseOpenAIStyleError,
    createStreamTranslator: () => new OpenAISseTranslator(row.usageInChoice === true, fixUsage),
  };
  if (!fixUsage) return adapter;
  // Only a row whose usage needs reshaping parses and re-serialises its JSON answers; the others relay their bytes.
  return merged(adapter, {
    toOpenAIResponse: (_input: AdapterInput, providerBody: unknown) => {
      const body = providerBody as Record<string, unknown>;
      return withUsageFixed(body, fixUsage) ?? body;
    },
  });
}

/** The credential header: `Authorization: Bearer` unless the row names another (Azure AI's `api-key`). */
export function authHeaders(row: OpenAICompatibleProvider, token: string): Record<string, string> {
  return row.authHeader ? { [row.authHeader]: token } : { authorization: `Bearer ${token}` };
}

/** The row's fixed query (Azure AI's `api-version`) appended to a built URL. */
export function withQuery(url: string, query: Record<string, string> | undefined): string {
  return query ? `${url}?${new URLSearchParams(query).toString()}` : url;
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
