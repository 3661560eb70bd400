import { isRecord } from '../../providers/common/json-guards.js';
import type { AdapterInput, OpenAIBody, TargetSettings, UpstreamCall } from '../../providers/types.js';
import { VERTEX_ANTHROPIC_VERSION } from '../../providers/vertex-ai/anthropic-version.js';
import { vertexAccessToken } from '../../providers/vertex-ai/credentials.js';
import { vertexFamily, vertexRoute } from '../../providers/vertex-ai/routes.js';
import type { NativeCallInput } from '../types.js';

const asAdapterInput = (target: TargetSettings, body: OpenAIBody, stream = false, forwardHeaders: Record<string, string> = {}): AdapterInput => ({ endpoint: 'chat', body, stream, target, forwardHeaders });

/** A Vertex AI target serves this request with Claude (by request type header or model name). */
export function isVertexClaude(target: TargetSettings, body: OpenAIBody): boolean {
  try {
    return vertexFamily(asAdapterInput(target, body)) === 'anthropic';
  } catch {
    // A bad request-type header is reported by the translated path's own check.
    return false;
  }
}

/**
 * Claude on Vertex AI takes the Messages body at `rawPredict` / `streamRawPredict`, with the model in the URL and
 * the API version (and betas) in the body: the client's body goes otherwise unchanged.
 */
export async function buildVertexClaudeCall(input: NativeCallInput): Promise<UpstreamCall> {
  const adapterInput = asAdapterInput(input.target, input.body, input.stream, input.forwardHeaders);
  const route = vertexRoute(adapterInput);
  const { model: _inUrl, user, ...body } = input.body;
  if (typeof user === 'string' && !(isRecord(body.metadata) && body.metadata.user_id !== undefined)) {
    body.metadata = { ...(isRecord(body.metadata) ? body.metadata : {}), user_id: user };
  }
  body.anthropic_version = VERTEX_ANTHROPIC_VERSION;
  body.stream = input.stream;
  const betas = (input.target.anthropicBeta ?? input.requestHeaders['anthropic-beta'])?.split(',').map((beta) => beta.trim()).filter(Boolean);
  if (betas && betas.length > 0) body.anthropic_beta = betas;
  const token = await vertexAccessToken(input.target);
  const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (input.stream) headers.accept = 'text/event-stream';
  return { url: route.url, headers, body: JSON.stringify(body) };
}
