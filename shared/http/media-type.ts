/**
 * Media types are case-insensitive and may carry parameters (RFC 9110 §8.3.1): `Application/JSON; charset=UTF-8`
 * is JSON and `TEXT/EVENT-STREAM` an event stream. Every check of a content-type goes through these helpers, so
 * no path compares the raw header text.
 */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function isEventStream(contentType: string | undefined): boolean {
  return mediaTypeOf(contentType) === 'text/event-stream';
}

/** `application/json`, or a structured `+json` type (`application/problem+json`). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
