import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { shareRequestCredentials } from '../observability/request-credentials.js';
import { hasScope } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { parseRenderBody, renderStoredPrompt } from '../prompts/render.js';
import { readVersionSelector } from '../prompts/versions.js';
import { GatewayError } from '../http/errors.js';
import type { Handler } from '../http/types.js';
import { merged } from '../merged.js';

const REQUIRED_SCOPES: readonly Scope[] = ['prompts:render', 'completions:write'];

/**
 * POST /v1/prompts/{promptId}/completions: renders the prompt exactly as /render does, then hands the rendered
 * body to the chat-completions route itself, with the caller's headers. Configs, virtual keys, policies,
 * retries and streaming therefore apply unchanged; the prompt id is added to the metadata as `_prompt`.
 */
export function promptCompletionsHandler(authenticator: ApiKeyAuthenticator, chatCompletions: Handler): Handler {
  return async (request, params) => {
    const principal = await authenticator.authenticate(request.headers['x-gw-api-key']);
    for (const scope of REQUIRED_SCOPES) {
      if (!hasScope(principal, scope)) throw new GatewayError(403, 'missing_scope', `This API key lacks the ${scope} scope`);
    }
    const body = parseRenderBody(request);
    const { data } = await renderStoredPrompt(principal.workspaceId, params.promptId, body, readVersionSelector(request.query));
    const headers: Record<string, string> = merged(request.headers, { 'content-type': 'application/json' });
    const metadata = withPromptMetadata(request.headers['x-gw-metadata'], params.promptId);
    if (metadata !== undefined) headers['x-gw-metadata'] = metadata;
    const chat = merged(request, { path: '/v1/chat/completions', query: {}, headers, body: Buffer.from(JSON.stringify(data)) });
    // An error leaves through the prompt route: it masks the credentials the chat request used.
    shareRequestCredentials(request, chat);
    return chatCompletions(chat, {});
  };
}

/**
 * The caller's metadata with `_prompt` set (unless the caller set it). Metadata that is not a JSON object is
 * left as it is, for the chat route to refuse with its usual message.
 */
function withPromptMetadata(header: string | undefined, promptId: string): string | undefined {
  if (header === undefined || header.trim() === '') return JSON.stringify({ _prompt: promptId });
  try {
    const parsed = JSON.parse(header) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return header;
    return JSON.stringify({ _prompt: promptId, ...parsed });
  } catch {
    return header;
  }
}
