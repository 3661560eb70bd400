import { badRequest } from '../../http/errors.js';
import { ENDPOINT_PATHS, type AdapterInput, type ProviderAdapter, type UpstreamCall } from '../types.js';
import type { OpenAICompatibleProvider } from './catalog.js';
import { summariseOpenAIStyleError } from './error-summary.js';
import { OpenAISseTranslator } from './stream.js';
import { merged } from '../../merged.js';

/** Builds the adapter for one catalog row: the body goes through untouched, the token as a Bearer header. */
export function openAICompatibleAdapter(row: OpenAICompatibleProvider): ProviderAdapter {
  return {
    slug: row.slug,
    aliases: row.aliases ?? [],
    endpoints: row.endpoints,
    buildCall(input: AdapterInput): UpstreamCall {
      const base = input.target.customHost ?? row.baseUrl;
      if (!base) {
        throw badRequest('custom_host_required', `Provider '${row.slug}' has no public endpoint: send x-gw-custom-host with its base URL`, 'x-gw-custom-host');
      }
      const body = { ...input.body };
      if (input.stream && input.endpoint !== 'embeddings' && row.acceptsStreamOptions) {
        const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
        // gw always asks for usage so it can meter the stream; the pipeline strips it if the client did not ask.
        body.stream_options = merged(options, { include_usage: true });
      }
      const headers: Record<string, string> = merged(input.forwardHeaders, { 'content-type': 'application/json' });
      if (input.stream) headers.accept = 'text/event-stream';
      if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
      return { url: joinUrl(base, ENDPOINT_PATHS[input.endpoint]), headers, body: JSON.stringify(body) };
    },
    toOpenAIError: summariseOpenAIStyleError,
    createStreamTranslator: () => new OpenAISseTranslator(),
  };
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
