import { isRecord, recordField } from '../../providers/common/json-guards.js';
import type { OpenAIBody } from '../../providers/types.js';
import { namedEvent } from '../sse.js';
import type { DialectStreamEncoder } from '../types.js';
import { messageItem, newId, responsesAnnotations, responseShell, responsesUsageFrom } from './response.js';
import { callItem, toolOrigins, type ToolOrigin } from './tools.js';

type Json = Record<string, unknown>;

/** The output item being streamed. */
type OpenItem =
  | { kind: 'message'; id: string; text: string; annotations: Json[] }
  | { kind: 'reasoning'; id: string; text: string }
  | { kind: 'tool'; id: string; toolIndex: number; callId: string; name: string; args: string };

/**
 * Canonical chat chunks → the Responses API's typed stream events, one canonical chunk at a time:
 * `response.created` / `response.in_progress` first, then per output item `output_item.added`, its content
 * part, deltas, and the matching `.done` events, and `response.completed` (with usage, which canonical streams
 * report last) when the canonical stream ends. Every event carries its `sequence_number`.
 */
export class ResponsesStreamEncoder implements DialectStreamEncoder {
  private sequence = 0;
  private started = false;
  private open?: OpenItem;
  private readonly output: Json[] = [];
  private finishReason: unknown;
  private usage: unknown;
  private model: unknown;
  private readonly id = newId('resp');
  private final?: Json;
  private readonly origins: Map<string, ToolOrigin>;

  constructor(private readonly body: OpenAIBody) {
    this.origins = toolOrigins(body);
  }

  /** The completed Response, once the stream ended cleanly. */
  finalResponse(): Json | undefined {
    return this.final;
  }

  chunk(chunk: Json): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (!this.started) this.start(out, chunk.model);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
    if (!choice) return out;
    const delta = recordField(choice, 'delta') ?? {};
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') this.reasoningDelta(out, delta.reasoning_content);
    if (typeof delta.content === 'string' && delta.content !== '') this.textDelta(out, delta.content);
    if (Array.isArray(delta.annotations)) this.annotationsAdded(out, responsesAnnotations(delta.annotations));
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.toolDelta(out, call);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return out;
  }

  done(): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (!this.started) this.start(out, undefined);
    this.closeItem(out);
    const incomplete = this.finishReason === 'length';
    this.final = {
      ...this.shell(incomplete ? 'incomplete' : 'completed'),
      incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
      usage: responsesUsageFrom(this.usage),
    };
    out.push(this.event(incomplete ? 'response.incomplete' : 'response.completed', { response: this.final }));
    return out;
  }

  error(body: Json): Uint8Array[] {
    const error = isRecord(body.error) ? body.error : {};
    const code = typeof error.code === 'string' ? error.code : 'server_error';
    const message = typeof error.message === 'string' ? error.message : 'The stream failed';
    const out: Uint8Array[] = [];
    if (!this.started) this.start(out, undefined);
    out.push(this.event('error', { code, message, param: null }));
    out.push(this.event('response.failed', { response: { ...this.shell('failed'), error: { code, message } } }));
    return out;
  }

  private start(out: Uint8Array[], model: unknown): void {
    this.started = true;
    this.model = model;
    out.push(this.event('response.created', { response: this.shell('in_progress') }));
    out.push(this.event('response.in_progress', { response: this.shell('in_progress') }));
  }

  private shell(status: string): Json {
    return { ...responseShell(this.body, this.id, this.model, status), output: this.output.map((item) => structuredClone(item)) };
  }

  private textDelta(out: Uint8Array[], text: string): void {
    if (this.open?.kind !== 'message') {
      const item = { kind: 'message' as const, id: newId('msg'), text: '', annotations: [] as Json[] };
      this.openItem(out, item, { ...messageItem(item.id, '', 'in_progress'), content: [] });
      out.push(this.event('response.content_part.added', { item_id: item.id, output_index: this.output.length, content_index: 0, part: outputText('') }));
    }
    const open = this.open as Extract<OpenItem, { kind: 'message' }>;
    open.text += text;
    out.push(this.event('response.output_text.delta', { item_id: open.id, output_index: this.output.length, content_index: 0, delta: text, logprobs: [] }));
  }

  /** Citations of the text streamed so far (web search): they belong to the open message. */
  private annotationsAdded(out: Uint8Array[], annotations: Json[]): void {
    if (this.open?.kind !== 'message') return;
    for (const annotation of annotations) {
      const fields = { item_id: this.open.id, output_index: this.output.length, content_index: 0, annotation_index: this.open.annotations.length, annotation };
      this.open.annotations.push(annotation);
      out.push(this.event('response.output_text.annotation.added', fields));
    }
  }

  private reasoningDelta(out: Uint8Array[], text: string): void {
    if (this.open?.kind !== 'reasoning') {
      const item = { kind: 'reasoning' as const, id: newId('rs'), text: '' };
      this.openItem(out, item, { type: 'reasoning', id: item.id, summary: [] });
      out.push(this.event('response.reasoning_summary_part.added', { item_id: item.id, output_index: this.output.length, summary_index: 0, part: { type: 'summary_text', text: '' } }));
    }
    const open = this.open as Extract<OpenItem, { kind: 'reasoning' }>;
    open.text += text;
    out.push(this.event('response.reasoning_summary_text.delta', { item_id: open.id, output_index: this.output.length, summary_index: 0, delta: text }));
  }

  private toolDelta(out: Uint8Array[], call: Json): void {
    const toolIndex = typeof call.index === 'number' ? call.index : 0;
    const fn = recordField(call, 'function') ?? {};
    if (this.open?.kind !== 'tool' || this.open.toolIndex !== toolIndex) {
      const item = { kind: 'tool' as const, id: newId('fc'), toolIndex, callId: String(call.id ?? newId('call')), name: String(fn.name ?? ''), args: '' };
      this.openItem(out, item, this.callItem(item, '', 'in_progress'));
    }
    const open = this.open as Extract<OpenItem, { kind: 'tool' }>;
    if (typeof fn.arguments === 'string' && fn.arguments !== '') {
      open.args += fn.arguments;
      // A free-form tool's input is only known whole (it is the `input` argument inside the JSON): its item says it.
      if (!this.origins.get(open.name)?.custom) out.push(this.event('response.function_call_arguments.delta', { item_id: open.id, output_index: this.output.length, delta: fn.arguments }));
    }
  }

  /** The client's view of a tool call: its own name, namespace and kind (./tools.ts). */
  private callItem(open: Extract<OpenItem, { kind: 'tool' }>, args: string, status: string): Json {
    const item = callItem(this.origins, open.id, open.callId, open.name, args, status);
    if (status === 'in_progress' && item.type === 'custom_tool_call') item.input = '';
    return item;
  }

  private openItem(out: Uint8Array[], item: OpenItem, added: Json): void {
    this.closeItem(out);
    this.open = item;
    out.push(this.event('response.output_item.added', { output_index: this.output.length, item: added }));
  }

  private closeItem(out: Uint8Array[]): void {
    const open = this.open;
    if (!open) return;
    const outputIndex = this.output.length;
    let item: Json;
    if (open.kind === 'message') {
      out.push(this.event('response.output_text.done', { item_id: open.id, output_index: outputIndex, content_index: 0, text: open.text, logprobs: [] }));
      out.push(this.event('response.content_part.done', { item_id: open.id, output_index: outputIndex, content_index: 0, part: outputText(open.text, open.annotations) }));
      item = messageItem(open.id, open.text, 'completed', open.annotations);
    } else if (open.kind === 'reasoning') {
      const part = { type: 'summary_text', text: open.text };
      out.push(this.event('response.reasoning_summary_text.done', { item_id: open.id, output_index: outputIndex, summary_index: 0, text: open.text }));
      out.push(this.event('response.reasoning_summary_part.done', { item_id: open.id, output_index: outputIndex, summary_index: 0, part }));
      item = { type: 'reasoning', id: open.id, summary: [part] };
    } else {
      item = this.callItem(open, open.args, 'completed');
      if (item.type === 'function_call') out.push(this.event('response.function_call_arguments.done', { item_id: open.id, output_index: outputIndex, name: item.name, arguments: open.args }));
    }
    out.push(this.event('response.output_item.done', { output_index: outputIndex, item }));
    this.output.push(item);
    this.open = undefined;
  }

  private event(type: string, fields: Json): Uint8Array {
    return namedEvent(type, { type, sequence_number: this.sequence++, ...fields });
  }
}

function outputText(text: string, annotations: Json[] = []): Json {
  return { type: 'output_text', text, annotations, logprobs: [] };
}
