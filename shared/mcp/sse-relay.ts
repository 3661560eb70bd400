import { SseDecoder, type EventSourceMessage } from '../http/sse.js';
import type { KnownCredentials } from '../observability/redact.js';
import { filterServerMessage, type ResponseOutcome } from './jsonrpc.js';
import { maskedText } from './mcp-masking.js';
import type { McpToolRules } from './types.js';

const encoder = new TextEncoder();

function encodeEvent(event: EventSourceMessage, data: string): Uint8Array {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  for (const line of data.split('\n')) text += `data: ${line}\n`;
  return encoder.encode(`${text}\n`);
}

/** One event, with denied tools taken out of any `tools/list` result it carries. */
function relayEvent(event: EventSourceMessage, rules: McpToolRules, onResponses: (responses: ResponseOutcome[]) => void, known: KnownCredentials | undefined): Uint8Array {
  const data = maskedText(event.data, known);
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return encodeEvent(event, data);
  }
  const { message, changed, responses } = filterServerMessage(parsed, rules);
  if (responses.length > 0) onResponses(responses);
  return encodeEvent(event, changed ? JSON.stringify(message) : data);
}

/**
 * Relays an MCP server's SSE stream event by event (never buffered), applying the tool rules to each JSON-RPC
 * message. The upstream body is released when the stream ends or the client goes away.
 */
export async function* relayServerEvents(
  upstream: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  rules: McpToolRules,
  onResponses: (responses: ResponseOutcome[]) => void,
  onEnd: (error?: unknown) => void,
  /** The server's stored credential (and any other the request used), masked in every relayed event. */
  known?: KnownCredentials,
): AsyncGenerator<Uint8Array> {
  const decoder = new SseDecoder();
  let failure: unknown;
  try {
    for await (const chunk of upstream) {
      for (const event of decoder.push(chunk)) yield relayEvent(event, rules, onResponses, known);
    }
    for (const event of decoder.end()) yield relayEvent(event, rules, onResponses, known);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // Ended or abandoned by the client: either way the upstream body is done with (its abort error goes nowhere).
    (upstream as unknown as { on?: (event: string, listener: () => void) => void }).on?.('error', () => undefined);
    upstream.destroy();
    onEnd(failure);
  }
}
