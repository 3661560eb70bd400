import { badRequest } from '../../http/errors.js';
import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { joinUrl } from './adapter.js';
import type { OpenAICompatibleProvider } from './catalog.js';
import { merged } from '../../merged.js';

/**
 * The pass-through endpoints of one catalog row: the client's bytes go to `{base}/{endpoint}` unchanged, the
 * provider token as a Bearer header. Undefined for a row that serves none of them.
 */
export function openAICompatiblePassthrough(row: OpenAICompatibleProvider): PassthroughSupport | undefined {
  if (!row.passthrough?.length) return undefined;
  return {
    endpoints: row.passthrough,
    buildCall(input: PassthroughInput): UpstreamCall {
      const base = input.target.customHost ?? row.baseUrl;
      if (!base) {
        throw badRequest('custom_host_required', `Provider '${row.slug}' has no public endpoint: send x-gw-custom-host with its base URL`, 'x-gw-custom-host');
      }
      const headers: Record<string, string> = merged(input.forwardHeaders, { 'content-type': input.contentType });
      if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
      return { url: joinUrl(base, `/${input.endpoint}`), headers, body: input.body };
    },
  };
}
