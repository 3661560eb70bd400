import { Writable } from 'node:stream';

export interface StreamPrelude {
  statusCode?: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
}

/**
 * The local stand-in for Lambda's response stream: it splits the prelude (JSON, then eight NUL bytes) from the
 * body and hands both on as they arrive, so streamed chunks reach the socket without buffering.
 */
export class PreludeSplittingStream extends Writable {
  private head: Buffer | undefined = Buffer.alloc(0);

  constructor(
    private readonly onPrelude: (prelude: StreamPrelude) => void,
    private readonly onBody: (chunk: Buffer, done: (error?: Error | null) => void) => void,
    private readonly onEnd: () => void,
  ) {
    super();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.onEnd();
    callback();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.head === undefined) return this.onBody(chunk, callback);
    this.head = Buffer.concat([this.head, chunk]);
    const end = findDelimiter(this.head);
    if (end < 0) return callback();
    const prelude = JSON.parse(this.head.subarray(0, end).toString('utf8')) as StreamPrelude;
    const rest = this.head.subarray(end + 8);
    this.head = undefined;
    this.onPrelude(prelude);
    if (rest.length > 0) return this.onBody(rest, callback);
    callback();
  }
}

// JSON never contains a raw NUL byte, so the first NUL starts the delimiter.
function findDelimiter(buffer: Buffer): number {
  const start = buffer.indexOf(0);
  return start >= 0 && buffer.length >= start + 8 ? start : -1;
}
