/**
 * The slices of the OpenAI chat wire format that translating providers read and write. Request bodies arrive
 * as untyped JSON; these types describe what a translator may expect after checking.
 */
export interface OpenAITextPart {
  type: 'text';
  text: string;
}
export interface OpenAIImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type OpenAIContentPart = OpenAITextPart | OpenAIImagePart | { type: string; [key: string]: unknown };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  content?: string | OpenAIContentPart[] | null;
  name?: string;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
  function_call?: { name: string; arguments: string };
  /** Reasoning text some providers return and accept back (gw's name for thinking blocks). */
  reasoning_content?: string;
}

export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type OpenAIToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** `cached_tokens`: cache reads; `cache_creation_tokens` (gw's addition): cache writes, priced as writes. */
  prompt_tokens_details?: { cached_tokens?: number; cache_creation_tokens?: number };
  /** The same cache writes under Anthropic's name, which the Messages dialect and older readers use. */
  cache_creation_input_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number };
  /** Searches a provider ran on its side (Anthropic's web search), billed per search on top of tokens. */
  server_tool_use?: { web_search_requests: number };
}

export type OpenAIFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';
