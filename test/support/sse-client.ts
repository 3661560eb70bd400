import { SseDecoder } from '../../shared/http/sse.js';

export interface ReceivedEvent {
  event?: string;
  data: string;
}

/** Reads a whole SSE response body into its events (event name kept only when present). */
export async function readSseEvents(response: Response): Promise<ReceivedEvent[]> {
  const decoder = new SseDecoder();
  const events: ReceivedEvent[] = [];
  const collect = (batch: Array<{ event?: string; data: string }>) => {
    for (const { event, data } of batch) events.push(event ? { event, data } : { data });
  };
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) collect(decoder.push(chunk));
  collect(decoder.end());
  return events;
}
