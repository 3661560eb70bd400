/**
 * The neutral request/response the core works with. The Lambda edge and the local edge translate to and
 * from these, so nothing below `shared/` ever sees an API Gateway event or a node:http object.
 */
export interface NeutralRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** Raw body bytes (empty when there is none). */
  body: Buffer;
  /** Source address of the caller, when the edge knows it. */
  sourceIp?: string;
  /** Aborted when the client goes away, so upstream calls can be cancelled. */
  signal?: AbortSignal;
}

export type ResponseBody = string | Uint8Array | AsyncIterable<Uint8Array> | undefined;

export interface NeutralResponse {
  status: number;
  headers: Record<string, string>;
  body: ResponseBody;
}

export type Handler = (request: NeutralRequest, params: Record<string, string>) => Promise<NeutralResponse>;

export function isStreamBody(body: ResponseBody): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

export function jsonResponse(status: number, payload: unknown, headers: Record<string, string> = {}): NeutralResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) };
}
