/**
 * Keeps the first `limit` bytes of a response as it streams past, for the log record. Chunks are referenced,
 * not copied, until the end: the hot path only pays a push and an addition per chunk.
 */
export class BodyCapture {
  private readonly parts: Uint8Array[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  add(chunk: Uint8Array | string): void {
    if (this.size >= this.limit) {
      this.truncated = true;
      return;
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const room = this.limit - this.size;
    if (bytes.length > room) this.truncated = true;
    const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.parts.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.parts.map((part) => Buffer.from(part.buffer, part.byteOffset, part.byteLength))).toString('utf8');
  }
}

/**
 * Wraps a streamed body: `onFirstChunk` fires when the first chunk goes to the client (TTFT), and `onDone`
 * after the last one went out (or the client left), so the after-path starts only once the stream is over.
 */
export async function* observedStream(
  source: AsyncIterable<Uint8Array>,
  capture: BodyCapture | undefined,
  onFirstChunk: () => void,
  onDone: () => void,
): AsyncGenerator<Uint8Array> {
  let first = true;
  try {
    for await (const chunk of source) {
      if (first) {
        first = false;
        onFirstChunk();
      }
      capture?.add(chunk);
      yield chunk;
    }
  } finally {
    onDone();
  }
}
