/**
 * The slices of the Bedrock Converse / ConverseStream wire format gw writes. Answers are read with the guards
 * in json.ts instead, because a provider answer is never trusted to match a type.
 */
export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ConverseImage {
  format: ConverseImageFormat;
  source: { bytes: string };
}

/** Marks the end of a prompt prefix Bedrock may cache (OpenAI-format `cache_control` on the part before it). */
export interface ConverseCachePoint {
  cachePoint: { type: 'default' };
}

export const CACHE_POINT: ConverseCachePoint = { cachePoint: { type: 'default' } };

export type ConverseContentBlock =
  | { text: string }
  | { image: ConverseImage }
  | { document: { format: string; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string } | { image: ConverseImage }>; status?: 'success' | 'error' } }
  | ConverseCachePoint
  | { reasoningContent: { reasoningText: { text: string; signature: string } } | { redactedContent: string } };

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> }; strict?: boolean };
}

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseToolConfig {
  tools: Array<ConverseToolSpec | ConverseCachePoint>;
  toolChoice?: ConverseToolChoice;
}

export interface ConverseInferenceConfig {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
}

export interface ConverseOutputConfig {
  textFormat: { type: 'json_schema'; structure: { jsonSchema: { schema: string; name?: string; description?: string } } };
}

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: Array<{ text: string } | ConverseCachePoint>;
  inferenceConfig?: ConverseInferenceConfig;
  toolConfig?: ConverseToolConfig;
  additionalModelRequestFields?: Record<string, unknown>;
  outputConfig?: ConverseOutputConfig;
}
