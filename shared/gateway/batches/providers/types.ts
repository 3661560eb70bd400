/** One call of a provider's batch API, as gw sends it. */
export interface BatchApiCall {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}

/** Where a stored credential's batch settings come from (a 400 names the field there), or undefined for headers. */
export type BatchSettingsStore = 'virtual key' | 'integration' | undefined;

/** The batch endpoints gw accepts, as OpenAI names them in a batch and in each of its lines. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/completions'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** One request of a batch input file, in OpenAI's batch format. */
export interface BatchInputLine {
  custom_id: string;
  method: 'POST';
  url: BatchEndpoint;
  body: Record<string, unknown>;
}

/**
 * How gw reaches one provider's OpenAI-shaped batch API for one resolved target: the URLs and credential header
 * of OpenAI's Files and Batch endpoints, and the form each input line must take there (openai.ts, azure-openai.ts).
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

/** What a batch is created with, besides its lines (OpenAI's create body, checked). */
export interface BatchSubmission {
  endpoint: BatchEndpoint;
  completion_window: string;
  metadata?: Record<string, string>;
  model: string;
}

/** A batch's result files in OpenAI's batch output shape (one JSON line per request), as gw keeps them. */
export interface BatchResultFiles {
  output?: Buffer;
  errors?: Buffer;
}

/**
 * A provider's batch service as gw drives it, whatever its own shape: every method answers in OpenAI's shapes
 * (a batch object whose `id` is the provider's handle, result lines in OpenAI's batch output format), so the
 * routes, reservation, settlement and logs are the same for every provider. Native providers relay OpenAI's API
 * (native.ts); Bedrock and Vertex AI translate to their batch jobs (bedrock.ts, vertex-ai.ts).
 */
export interface BatchDriver {
  /** Checks a batch before anything is reserved or sent (a translated provider's settings and lines): 400s. */
  validate?(lines: readonly BatchInputLine[], submission: BatchSubmission): void;
  /** Sends the input and creates the batch: the provider's batch object in OpenAI's shape (`id` required). */
  submit(lines: readonly BatchInputLine[], submission: BatchSubmission, signal?: AbortSignal): Promise<Record<string, unknown>>;
  retrieve(providerBatchId: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  cancel(providerBatchId: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * The results of an ended batch, given the batch object last retrieved and the batch's input lines (translated
   * providers name results by their own record ids): absent files are undefined.
   */
  results(providerView: Record<string, unknown>, lines: readonly BatchInputLine[], signal?: AbortSignal): Promise<BatchResultFiles>;
}
