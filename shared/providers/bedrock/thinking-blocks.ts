/**
 * Claude's signed reasoning in the shape gw's Anthropic adapter uses (`thinking_blocks` on the assistant
 * message), so a client keeps one format whether Claude runs on Anthropic or on Bedrock.
 */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

/** A Converse reasoning block → a thinking block; unsigned reasoning cannot be sent back, so it yields none. */
export function thinkingBlockOf(text: string, signature: string | undefined, redactedContent: string | undefined): ThinkingBlock | undefined {
  if (redactedContent) return { type: 'redacted_thinking', data: redactedContent };
  if (signature) return { type: 'thinking', thinking: text, signature };
  return undefined;
}
