import { newSpanId, startSpan, type OpenSpan, type SpanRecord } from '../observability/spans.js';
import type { ResponseOutcome, ToolCall } from './jsonrpc.js';
import type { McpServerRecord } from './types.js';

/**
 * One span (kind `tool`) per `tools/call` of an MCP request, ended when the server's answer to that call passes
 * through gw (or at once, failed, for a call the deny list refused). Spans live on this object, which carries
 * what `startSpan` needs, and go into the request's log record.
 */
export class ToolCallSpans {
  spans: SpanRecord[] = [];
  readonly rootSpanId = newSpanId();
  private readonly open = new Map<string, OpenSpan>();

  constructor(private readonly server: Pick<McpServerRecord, 'id' | 'slug'>) {}

  get count(): number {
    return this.spans.length;
  }

  begin(calls: ReadonlyArray<ToolCall & { allowed: boolean }>): void {
    for (const call of calls) {
      const span = startSpan(this, 'mcp.tools/call', { 'mcp.server.id': this.server.id, 'mcp.server.slug': this.server.slug, 'mcp.tool.name': call.name, 'mcp.tool.allowed': call.allowed }, { kind: 'tool' });
      // A notification gets no answer to wait for: its span ends once it was handed to the server.
      if (call.allowed && call.id === undefined) span.end({ 'mcp.tool.notification': true });
      else if (call.allowed) this.open.set(JSON.stringify(call.id), span);
      else span.end(undefined, { code: 'tool_denied', message: `Tool '${call.name}' is denied by the server's tool rules` });
    }
  }

  /** Ends the spans of the calls these responses answer. */
  settle(responses: readonly ResponseOutcome[]): void {
    for (const response of responses) {
      const key = JSON.stringify(response.id);
      const span = this.open.get(key);
      if (!span) continue;
      this.open.delete(key);
      span.end({ 'mcp.tool.is_error': response.failed }, response.failed ? { code: 'tool_error', message: 'The tool call returned an error' } : undefined);
    }
  }

  /** Ends whatever is still open: the server never answered those calls (stream cut, upstream failure). */
  finish(error?: unknown): void {
    for (const span of this.open.values()) span.end(undefined, error ?? { code: 'no_response', message: 'The MCP server sent no answer to this call' });
    this.open.clear();
  }

  toolNames(): string {
    return [...new Set(this.spans.map((span) => String(span.attributes['mcp.tool.name'])))].join(',');
  }
}
