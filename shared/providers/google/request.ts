import { badRequest } from '../../http/errors.js';
import { withoutUnsupportedParams } from '../common/unsupported-params.js';
import type { AdapterInput, OpenAIBody } from '../types.js';
import { toGeminiConversation } from './contents.js';
import type { GeminiBody } from './gemini-types.js';
import { toGenerationConfig } from './generation-config.js';
import { toGeminiTools } from './tools.js';
import { GOOGLE_SEARCH_TOOL, groundsWithSearch } from './grounding.js';

/** OpenAI parameters Gemini has no equivalent for: a 400 unless the caller lets gw drop them (then reported). */
const UNSUPPORTED_CHAT_PARAMS = [
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'parallel_tool_calls',
  'prediction',
  'audio',
  'web_search_options',
  'modalities',
  'store',
  'metadata',
  'service_tier',
  'verbosity',
  'prompt_cache_key',
];

/** OpenAI chat body → Gemini `generateContent` body (the same for the Gemini API and Vertex AI). */
export function toGenerateContentBody(input: AdapterInput, providerName: string): GeminiBody {
  // Web search alone becomes Google Search grounding (grounding.ts); beside function tools it stays unsupported.
  const grounded = groundsWithSearch(input.body);
  const { web_search_options: _search, ...withoutSearch } = input.body;
  const body = withoutUnsupportedParams({ ...input, body: withoutHarmlessValues(grounded ? withoutSearch : input.body) }, providerName, UNSUPPORTED_CHAT_PARAMS);
  if (!Array.isArray(body.messages)) throw badRequest('missing_messages', '`messages` is required and must be a non-empty array', 'messages');
  const model = typeof body.model === 'string' ? body.model : '';
  const out: GeminiBody = { ...toGeminiConversation(body.messages), ...toGeminiTools(body) };
  if (grounded) out.tools = [GOOGLE_SEARCH_TOOL];
  const generationConfig = toGenerationConfig(body, model);
  if (Object.keys(generationConfig).length > 0) out.generationConfig = generationConfig;
  // Gemini's own safety settings may be sent as they are (snake or camel case); gw does not interpret them.
  const safety = body.safety_settings ?? body.safetySettings;
  if (safety !== undefined) out.safetySettings = safety;
  return out;
}

/**
 * Values that ask for what Gemini does anyway are not "unsupported" (some SDKs always send OpenAI's defaults):
 * `logprobs: false`, `top_logprobs: 0`, an empty `logit_bias`, `parallel_tool_calls: true` (Gemini may
 * always call several functions at once), `store: false`, `service_tier: "auto"` and `modalities: ["text"]`.
 */
function withoutHarmlessValues(body: OpenAIBody): OpenAIBody {
  const copy = { ...body };
  if (copy.logprobs === false) delete copy.logprobs;
  if (copy.top_logprobs === 0) delete copy.top_logprobs;
  if (isEmptyObject(copy.logit_bias)) delete copy.logit_bias;
  if (copy.parallel_tool_calls === true) delete copy.parallel_tool_calls;
  if (copy.store === false) delete copy.store;
  if (copy.service_tier === 'auto') delete copy.service_tier;
  if (Array.isArray(copy.modalities) && copy.modalities.length === 1 && copy.modalities[0] === 'text') delete copy.modalities;
  return copy;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
