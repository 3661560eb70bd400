/**
 * Rebuilds the complete response from the OpenAI chunks of a stream as they pass through (a tee: nothing is
 * delayed), so a streamed answer can be cached and later served to streamed and non-streamed calls alike.
 */
interface ToolCallParts {
  id?: string;
  type: string;
  name: string;
  arguments: string;
}

interface ChoiceParts {
  role: string;
  content: string;
  hasContent: boolean;
  reasoning: string;
  text: string;
  refusal?: string;
  toolCalls: Map<number, ToolCallParts>;
  finishReason: string | null;
}

export class StreamAssembler {
  private id?: string;
  private object?: string;
  private created?: number;
  private model?: string;
  private systemFingerprint?: string;
  private usage?: unknown;
  private readonly choices = new Map<number, ChoiceParts>();

  add(chunk: Record<string, unknown>): void {
    this.id ??= chunk.id as string | undefined;
    this.object ??= chunk.object as string | undefined;
    this.created ??= chunk.created as number | undefined;
    this.model ??= chunk.model as string | undefined;
    this.systemFingerprint ??= (chunk.system_fingerprint as string | undefined) ?? undefined;
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of (chunk.choices as Array<Record<string, unknown>> | undefined) ?? []) {
      const index = (choice.index as number | undefined) ?? 0;
      const parts = this.choiceAt(index);
      if (typeof choice.text === 'string') parts.text += choice.text;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      if (typeof delta.role === 'string') parts.role = delta.role;
      if (typeof delta.content === 'string') {
        parts.content += delta.content;
        parts.hasContent = true;
      }
      if (typeof delta.reasoning_content === 'string') parts.reasoning += delta.reasoning_content;
      if (typeof delta.refusal === 'string') parts.refusal = (parts.refusal ?? '') + delta.refusal;
      for (const call of (delta.tool_calls as Array<Record<string, unknown>> | undefined) ?? []) {
        const callIndex = (call.index as number | undefined) ?? 0;
        const tool = parts.toolCalls.get(callIndex) ?? { type: 'function', name: '', arguments: '' };
        const fn = (call.function ?? {}) as { name?: string; arguments?: string };
        if (typeof call.id === 'string') tool.id = call.id;
        if (typeof call.type === 'string') tool.type = call.type;
        if (fn.name) tool.name += fn.name;
        if (fn.arguments) tool.arguments += fn.arguments;
        parts.toolCalls.set(callIndex, tool);
      }
      if (typeof choice.finish_reason === 'string') parts.finishReason = choice.finish_reason;
    }
  }

  /** The assembled `chat.completion` (or `text_completion`). */
  result(): Record<string, unknown> {
    const isText = this.object === 'text_completion';
    const choices = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, parts]) => {
        if (isText) return { index, text: parts.text, finish_reason: parts.finishReason, logprobs: null };
        const message: Record<string, unknown> = { role: parts.role, content: parts.hasContent || parts.toolCalls.size === 0 ? parts.content : null };
        if (parts.reasoning) message.reasoning_content = parts.reasoning;
        if (parts.refusal !== undefined) message.refusal = parts.refusal;
        if (parts.toolCalls.size > 0) {
          message.tool_calls = [...parts.toolCalls.entries()]
            .sort(([a], [b]) => a - b)
            .map(([, call]) => ({ id: call.id, type: call.type, function: { name: call.name, arguments: call.arguments } }));
        }
        return { index, message, finish_reason: parts.finishReason, logprobs: null };
      });
    const result: Record<string, unknown> = {
      id: this.id,
      object: isText ? 'text_completion' : 'chat.completion',
      created: this.created,
      model: this.model,
      choices,
    };
    if (this.systemFingerprint) result.system_fingerprint = this.systemFingerprint;
    if (this.usage) result.usage = this.usage;
    return result;
  }

  private choiceAt(index: number): ChoiceParts {
    let parts = this.choices.get(index);
    if (!parts) {
      parts = { role: 'assistant', content: '', hasContent: false, reasoning: '', text: '', toolCalls: new Map(), finishReason: null };
      this.choices.set(index, parts);
    }
    return parts;
  }
}
