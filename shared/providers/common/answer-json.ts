/**
 * A provider's answer bytes as JSON, or undefined when they are not JSON: the translators then refuse the answer
 * in their own words (a Deepgram answer without a transcript, a Stability answer without an image).
 */
export function jsonOrUndefined(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
