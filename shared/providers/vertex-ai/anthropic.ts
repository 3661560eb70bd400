import { toAnthropicMessagesBody } from '../anthropic/messages-codec.js';
import { VERTEX_ANTHROPIC_VERSION } from './anthropic-version.js';
import type { AdapterInput } from '../types.js';


/**
 * Claude on Vertex AI takes Anthropic's Messages body with two differences: the model is in the URL, not the
 * body, and the API version (and any beta flags) travel in the body.
 */
export function toVertexAnthropicBody(input: AdapterInput): Record<string, unknown> {
  const { model: _model, ...body } = toAnthropicMessagesBody(input);
  body.anthropic_version = VERTEX_ANTHROPIC_VERSION;
  const betas = input.target.anthropicBeta?.split(',').map((beta) => beta.trim()).filter(Boolean);
  if (betas && betas.length > 0) body.anthropic_beta = betas;
  return body;
}
