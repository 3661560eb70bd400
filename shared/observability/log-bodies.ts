import { randomBytes } from 'node:crypto';
import { settings } from '../settings.js';
import { blobStore } from '../store/blobs/blob-store-factory.js';
import { redact, redactText, type KnownCredentials } from './redact.js';
import { parsedAnswerOf, rememberSerialisedBody } from './serialised-body.js';

export interface StoredBodies {
  request_body: unknown;
  response_body: unknown;
  request_body_ref?: string;
  response_body_ref?: string;
  body_truncated?: boolean;
}

/**
 * Prepares the bodies of a log record: redacted, cut at GW_LOG_BODY_MAX_BYTES, kept inline up to
 * GW_LOG_BODY_INLINE_BYTES (a DynamoDB item holds 400 KB) and put in the blob store beyond that, the record
 * keeping the blob's key. Runs on the after-path only.
 */
export async function storeBodies(workspaceId: string, logId: string, request: unknown, response: string | Uint8Array | undefined, truncatedAlready: boolean, credentials?: KnownCredentials): Promise<StoredBodies> {
  const { GW_LOG_BODY_INLINE_BYTES, GW_LOG_BODY_MAX_BYTES } = settings();
  const result: StoredBodies = { request_body: null, response_body: null };
  let truncated = truncatedAlready;
  const responseText = response === undefined || typeof response === 'string' ? response : Buffer.from(response.buffer, response.byteOffset, response.byteLength).toString('utf8');
  const parts: Array<['request' | 'response', unknown, string | undefined]> = [
    ['request', request, undefined],
    ['response', responseText === undefined ? undefined : ((typeof response === 'object' ? parsedAnswerOf(response) : undefined) ?? parseIfJson(responseText)), responseText],
  ];
  for (const [which, body, source] of parts) {
    if (body === undefined || body === null) continue;
    const redacted: unknown = typeof body === 'string' ? redactText(body, credentials) : redact(body, credentials);
    // A JSON answer with nothing to redact (redact shares what it does not change) is stored as the text it came
    // as: JSON already, read back to the same value, without serialising it again (issue #34).
    let text = typeof redacted === 'string' ? redacted : redacted === body && source !== undefined ? source : JSON.stringify(redacted);
    let bytes = Buffer.byteLength(text);
    const cut = bytes > GW_LOG_BODY_MAX_BYTES;
    if (cut) {
      text = Buffer.from(text).subarray(0, GW_LOG_BODY_MAX_BYTES).toString('utf8');
      bytes = Buffer.byteLength(text);
      truncated = true;
    }
    if (bytes <= GW_LOG_BODY_INLINE_BYTES) {
      // The redacted copy itself (not a parse of its text); its text is kept for the log row (serialisedBody).
      const inline = typeof redacted === 'string' || cut ? text : redacted;
      if (typeof inline === 'object' && inline !== null) rememberSerialisedBody(inline, text);
      result[`${which}_body`] = inline;
    } else {
      const key = `logs/${workspaceId}/${logId}-${which}-${randomBytes(4).toString('hex')}.json`;
      await blobStore().put(key, text, 'application/json');
      result[`${which}_body_ref`] = key;
    }
  }
  if (truncated) result.body_truncated = true;
  return result;
}

/** A body read back from the blob store: JSON when it parses, otherwise the (truncated) text. */
export async function loadBody(key: string): Promise<unknown> {
  const bytes = await blobStore().get(key);
  return bytes === undefined ? null : parseIfJson(bytes.toString('utf8'));
}

function parseIfJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
