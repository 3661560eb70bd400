const encoder = new TextEncoder();

/** One named SSE event: both `event:` and a JSON `data:` line, as the Anthropic and Responses APIs send them. */
export function namedEvent(name: string, payload: Record<string, unknown>): Uint8Array {
  return encoder.encode(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
}
