import { deny, PASS, type GuardrailVerdict } from './outcome.js';
import { requestTypeName } from './request-shapes.js';
import type { AllowedRequestTypesConfig } from './schemas.js';

/**
 * allowed_request_types: `allow` lets only the listed endpoints through, `block` refuses them. The names are
 * the inbound paths under /v1 (`chat/completions`, `completions`, `embeddings`, `responses`, `messages`); a
 * prompt completion (`/v1/prompts/{id}/completions`) runs as a chat completion and is `chat/completions`.
 */
export function checkRequestType(config: AllowedRequestTypesConfig, endpoint: string): GuardrailVerdict {
  const name = requestTypeName(endpoint);
  const listed = (config.endpoints as readonly string[]).includes(name);
  if (config.mode === 'allow' && !listed) return deny('guardrail_request_type_not_allowed', `${name} requests are not allowed (allowed: ${config.endpoints.join(', ')})`, null);
  if (config.mode === 'block' && listed) return deny('guardrail_request_type_blocked', `${name} requests are blocked`, null);
  return PASS;
}
