import { rowBaseUrl } from './account-host.js';
import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { authHeaders, joinUrl, withQuery } from './adapter.js';
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
      const base = rowBaseUrl(row, input.target);
      const headers: Record<string, string> = merged(input.forwardHeaders, { 'content-type': input.contentType });
      if (input.target.apiKey) Object.assign(headers, authHeaders(row, input.target.apiKey));
      return { url: withQuery(joinUrl(base, `/${input.endpoint}`), row.query), headers, body: input.body };
    },
  };
}
