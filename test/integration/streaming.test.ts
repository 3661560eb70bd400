import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { chatStream, openAIMockHandler } from '../support/mock-openai.js';
import { sse, type MockUpstream } from '../support/mock-upstream.js';
import { readSseEvents } from '../support/sse-client.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const streamed = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true };
const viaMock = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-test' });

describe('streamed chat completions', () => {
  it('relays chunks as they arrive: the client sees the first chunk while the upstream is still held back', async () => {
    const [first] = chatStream('gpt-4o-mini', 'one two three');
    // The mock sends the first chunk and then never finishes: only an unbuffered relay lets it through.
    upstream.setHandler(() => ({ chunks: [first], hangAfterChunks: true }));
    const response = await gateway.post('/v1/chat/completions', streamed, viaMock());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    // Arrived although the upstream has not finished (it is hanging): nothing was buffered.
    expect(new TextDecoder().decode(value)).toContain('"role":"assistant"');
    await reader.cancel();
  });

  it('asks the provider for usage but strips it when the client did not ask', async () => {
    upstream.setHandler(openAIMockHandler());
    const response = await gateway.post('/v1/chat/completions', streamed, viaMock());
    const events = await readSseEvents(response);
    expect((upstream.requests.at(-1)!.json as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    expect(events.some((event) => event.data.includes('"usage"'))).toBe(false);
    const text = events.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data).choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('Hello from the mock provider!');
  });

  it('keeps the usage chunk when the client asked for it', async () => {
    const response = await gateway.post('/v1/chat/completions', { ...streamed, stream_options: { include_usage: true } }, viaMock());
    const events = await readSseEvents(response);
    const usage = events.map((event) => (event.data === '[DONE]' ? undefined : JSON.parse(event.data))).find((chunk) => chunk?.usage);
    expect(usage.usage).toEqual({ prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 });
    expect(usage.choices).toEqual([]);
  });

  it('turns an error event before any content into an HTTP error', async () => {
    upstream.setHandler(() => ({ chunks: sse({ error: { message: 'model overloaded', type: 'server_error', code: 'overloaded' } }) }));
    const response = await gateway.post('/v1/chat/completions', streamed, viaMock());
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string; provider_error: unknown } };
    expect(body.error.code).toBe('overloaded');
    expect(body.error.provider_error).toEqual({ error: { message: 'model overloaded', type: 'server_error', code: 'overloaded' } });
  });

  it('ends with an SSE error event when the upstream connection drops mid-stream', async () => {
    const chunks = chatStream('gpt-4o-mini', 'one two three four').slice(0, 3);
    upstream.setHandler(() => ({ chunks, resetAfterChunks: true }));
    const events = await readSseEvents(await gateway.post('/v1/chat/completions', streamed, viaMock()));
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data).error.code).toBe('upstream_stream_interrupted');
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
  });

  it('ends with an SSE error event when the upstream closes cleanly but early', async () => {
    const chunks = chatStream('gpt-4o-mini', 'one two three four').slice(0, 3);
    upstream.setHandler(() => ({ chunks }));
    const events = await readSseEvents(await gateway.post('/v1/chat/completions', streamed, viaMock()));
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe('upstream_stream_truncated');
  });

  it('forwards a provider error event that arrives after content, then stops', async () => {
    const [role, word] = chatStream('gpt-4o-mini', 'one two');
    upstream.setHandler(() => ({ chunks: [role, word, ...sse({ error: { message: 'lost the model', code: 'server_error' } })] }));
    const events = await readSseEvents(await gateway.post('/v1/chat/completions', streamed, viaMock()));
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data).error.message).toBe('lost the model');
  });

  it('keeps the upstream connection alive across streams whose body ends a moment after [DONE]', async () => {
    upstream.setHandler(() => ({ chunks: chatStream('gpt-4o-mini', 'reuse me'), endDelayMs: 30 }));
    const start = upstream.requests.length;
    for (let i = 0; i < 8; i++) {
      const events = await readSseEvents(await gateway.post('/v1/chat/completions', streamed, viaMock()));
      expect(events.at(-1)!.data).toBe('[DONE]');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const ports = new Set(upstream.requests.slice(start).map((request) => request.remotePort));
    expect(ports.size).toBe(1);
    upstream.setHandler(openAIMockHandler());
  });

  it('survives a client that disconnects while gw still waits for the provider', async () => {
    upstream.setHandler(() => ({ chunks: chatStream('gpt-4o-mini', 'late answer'), delayMs: 300 }));
    const controller = new AbortController();
    const pending = fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, ...viaMock() },
      body: JSON.stringify(streamed),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 400));
    upstream.setHandler(openAIMockHandler());
    const after = await gateway.post('/v1/chat/completions', streamed, viaMock());
    expect(after.status).toBe(200);
    expect((await readSseEvents(after)).at(-1)!.data).toBe('[DONE]');
  });

  it('aborts the upstream call when the client disconnects', async () => {
    const before = upstream.closedEarly();
    upstream.setHandler(() => ({ chunks: chatStream('gpt-4o-mini', 'a b c d e f g h'), chunkDelayMs: 200 }));
    const response = await gateway.post('/v1/chat/completions', streamed, viaMock());
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await waitFor(() => upstream.closedEarly() > before);
    expect(upstream.closedEarly()).toBe(before + 1);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
