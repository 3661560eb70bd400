import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** One message of an AWS event stream (`application/vnd.amazon.eventstream`), payload parsed as JSON. */
export type EventStreamMessage =
  | { kind: 'event'; eventType: string; payload: unknown }
  | { kind: 'exception'; exceptionType: string; payload: unknown }
  | { kind: 'error'; errorCode: string; errorMessage: string };

/** The bytes do not form a valid event stream (bad length, bad checksum, payload that is not JSON). */
export class EventStreamDecodeError extends Error {
  override readonly name = 'EventStreamDecodeError';
}

type CodecMessage = ReturnType<EventStreamCodec['decode']>;

// Prelude (8) + prelude CRC (4) + message CRC (4): the smallest possible message.
const MIN_MESSAGE_BYTES = 16;
// AWS caps one event-stream message at 16 MiB; anything above that is garbage, not a big message.
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024 + 1024;

/**
 * Incremental decoder for the AWS binary event stream. Every message starts with its total length (4 bytes,
 * big-endian); byte chunks may split a message anywhere, so bytes are kept until a whole message is there and
 * then handed to `EventStreamCodec`, which checks both CRCs and parses the headers.
 */
export class EventStreamDecoder {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  private buffer: Uint8Array = new Uint8Array(0);

  /** Feeds bytes; returns the messages they completed. Throws EventStreamDecodeError on corrupt input. */
  push(bytes: Uint8Array): EventStreamMessage[] {
    this.buffer = this.buffer.length === 0 ? bytes : concat(this.buffer, bytes);
    const messages: EventStreamMessage[] = [];
    while (this.buffer.length >= 4) {
      const total = new DataView(this.buffer.buffer, this.buffer.byteOffset, 4).getUint32(0, false);
      if (total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) {
        throw new EventStreamDecodeError(`event-stream message length ${total} is out of range`);
      }
      if (this.buffer.length < total) break;
      const frame = this.buffer.subarray(0, total);
      this.buffer = this.buffer.subarray(total);
      messages.push(this.interpret(this.decodeFrame(frame)));
    }
    return messages;
  }

  /** Bytes received that do not (yet) make a whole message. */
  get pendingBytes(): number {
    return this.buffer.length;
  }

  private decodeFrame(frame: Uint8Array): CodecMessage {
    try {
      return this.codec.decode(frame);
    } catch (error) {
      throw new EventStreamDecodeError(`corrupt event-stream message: ${(error as Error).message}`);
    }
  }

  private interpret(message: CodecMessage): EventStreamMessage {
    const header = (name: string): string | undefined => {
      const value = message.headers[name]?.value;
      return typeof value === 'string' ? value : undefined;
    };
    const messageType = header(':message-type') ?? 'event';
    if (messageType === 'error') {
      return { kind: 'error', errorCode: header(':error-code') ?? 'UnknownError', errorMessage: header(':error-message') ?? '' };
    }
    const payload = parsePayload(message.body);
    if (messageType === 'exception') return { kind: 'exception', exceptionType: header(':exception-type') ?? 'UnknownException', payload };
    return { kind: 'event', eventType: header(':event-type') ?? '', payload };
  }
}

function parsePayload(body: Uint8Array): unknown {
  if (body.length === 0) return {};
  const text = toUtf8(body);
  try {
    return JSON.parse(text);
  } catch {
    throw new EventStreamDecodeError('event-stream payload is not JSON');
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
