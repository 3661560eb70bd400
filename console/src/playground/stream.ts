import { ApiError } from '../api';
import { apiUrl } from '../mount';
import { authHeaders, type Credential } from '../session';

/**
 * Sends a chat completion through gw with `stream: true` and hands each piece of the answer to `onText` as it
 * arrives (server-sent events, `data: {chunk}` … `data: [DONE]`). An error before the stream starts is gw's one
 * error shape; an error event inside the stream is raised the same way.
 */
export async function streamChat(credential: Credential, headers: Record<string, string>, body: Record<string, unknown>, onText: (text: string) => void, signal?: AbortSignal): Promise<{ status: number; headers: Headers }> {
  const response = await fetch(apiUrl('/v1/chat/completions'), {
    method: 'POST',
    headers: { ...authHeaders(credential), ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
  });
  if (!response.ok || !response.body) {
    const parsed = (await response.json().catch(() => undefined)) as { error?: { message?: string; code?: string } } | undefined;
    throw new ApiError(response.status, parsed?.error?.message ?? `HTTP ${response.status}`, parsed?.error?.code);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]' || data === '') continue;
      const event = JSON.parse(data) as { error?: { message?: string; code?: string }; choices?: { delta?: { content?: string | null } }[] };
      if (event.error) throw new ApiError(response.status, event.error.message ?? 'stream error', event.error.code);
      const text = event.choices?.[0]?.delta?.content;
      if (text) onText(text);
    }
  }
  return { status: response.status, headers: response.headers };
}
