/** One call of a provider's batch API, as gw sends it. */
export interface BatchApiCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}

/** The batch endpoints gw accepts, as OpenAI names them in a batch and in each of its lines. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/completions'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/**
 * How gw reaches one provider's batch API for one resolved target: the URLs and credential header of OpenAI's
 * Files and Batch endpoints, and the form each input line must take there. A provider with no such API has no
 * `BatchApi` (see refusals.ts).
 */
export interface BatchApi {
  uploadFile(body: Uint8Array, contentType: string): BatchApiCall;
  createBatch(body: Record<string, unknown>): BatchApiCall;
  getBatch(providerBatchId: string): BatchApiCall;
  cancelBatch(providerBatchId: string): BatchApiCall;
  fileContent(providerFileId: string): BatchApiCall;
  /** The `endpoint` of a batch and the `url` of its lines as this provider takes them. */
  endpointPath(endpoint: BatchEndpoint): string;
}
