/**
 * The slices of Google's `generateContent` wire format (Gemini API and Vertex AI share it) that gw writes and
 * reads. Field names are the REST (camelCase) ones.
 */
export interface GeminiFunctionCall {
  name: string;
  args?: Record<string, unknown>;
  id?: string;
}

export interface GeminiPart {
  text?: string;
  /** True when `text` is a thought summary rather than answer text. */
  thought?: boolean;
  /** Opaque reasoning state Gemini wants back on the part it came with (Gemini 3 enforces it on function calls). */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
  executableCode?: { language?: string; code?: string };
  codeExecutionResult?: { outcome?: string; output?: string };
}

export interface GeminiContent {
  role?: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  /** Gemini's explanation of an unusual finish (e.g. the malformed call text for MALFORMED_FUNCTION_CALL). */
  finishMessage?: string;
  index?: number;
  /** Grounding with Google Search: the sources and which spans of the answer they support (grounding.ts). */
  groundingMetadata?: unknown;
}

export interface GeminiGenerateContentResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

export type GeminiBody = Record<string, unknown>;
