/**
 * The contract between the gateway pipeline and a provider. A provider is pure translation plus the shape
 * of one HTTP call: it knows nothing of stores, policies or edges. The pipeline makes the call.
 */
export type Endpoint = 'chat' | 'completions' | 'embeddings' | 'responses' | 'messages';

export const ENDPOINT_PATHS: Record<Endpoint, string> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  // Inbound dialects (shared/dialects/): translated to chat, or sent natively to providers that speak them.
  responses: '/responses',
  messages: '/messages',
};

/** AWS credentials as SigV4 signs with them (shared/providers/common/aws-sigv4.ts). */
/** An IAM role a virtual key names for Bedrock (aws.role_arn, external_id, session_name). */
export interface AwsRoleToAssume {
  roleArn: string;
  externalId?: string;
  sessionName?: string;
}

export interface AwsCredentialsValue {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Provider settings resolved for one target, whichever of the four auth methods supplied them. */
export interface TargetSettings {
  /** Canonical provider slug (aliases already resolved). */
  provider: string;
  /** The provider credential (from `Authorization: Bearer`, a virtual key or a config). Never logged. */
  apiKey?: string;
  /** Base URL that replaces the provider's own. */
  customHost?: string;
  azure?: { resourceName?: string; deploymentId?: string; apiVersion?: string; modelName?: string };
  /** batchBucket, batchPrefix: where Vertex AI batches keep their files (shared/gateway/batches/providers/vertex-ai.ts). */
  vertex?: { projectId?: string; region?: string; requestType?: string; serviceAccountJson?: string; batchBucket?: string; batchPrefix?: string };
  aws?: {
    accessKeyId?: string;
    secretAccessKey?: string;
    sessionToken?: string;
    region?: string;
    role?: AwsRoleToAssume;
    /** Bedrock batch inference (shared/gateway/batches/providers/bedrock.ts): the S3 bucket and key prefix of its files, and the service role Bedrock runs the job as. */
    batchBucket?: string;
    batchPrefix?: string;
    batchRoleArn?: string;
  };
  /**
   * The gateway's own AWS identity (GW_BEDROCK_FUNCTION_ROLE: on Lambda, the function's role), for an AWS call that
   * carries no credentials: its credentials (the SDK's default chain, refreshed before they expire) and region.
   */
  awsFunctionRole?: {
    credentials: () => Promise<AwsCredentialsValue>;
    region: string;
    /** The credentials of a role this identity assumes (a virtual key's aws.role_arn), cached until near expiry. */
    assumeRole: (role: AwsRoleToAssume) => Promise<AwsCredentialsValue>;
  };
  anthropicBeta?: string;
  anthropicVersion?: string;
  /** Per-account coordinates of OpenAI-compatible providers, by header name (`x-gw-cloudflare-account-id`: id), already checked. */
  accounts?: Record<string, string>;
}

export type OpenAIBody = Record<string, unknown>;

export interface AdapterInput {
  endpoint: Endpoint;
  /** The OpenAI-format body, after gw's own edits (override params, `user` from metadata). */
  body: OpenAIBody;
  stream: boolean;
  target: TargetSettings;
  /** Headers the caller asked gw to pass on unprocessed (already filtered). */
  forwardHeaders: Record<string, string>;
  /** `x-gw-drop-unsupported-params: true`: drop parameters the provider cannot honour instead of a 400. */
  dropUnsupportedParams?: boolean;
  /**
   * Filled by the provider while it builds the call: the parameters it dropped under
   * `x-gw-drop-unsupported-params`. Shared by reference through `{ ...input }` copies; the registry creates it.
   */
  droppedParams?: string[];
}

/** The HTTP call a provider wants made. */
export interface UpstreamCall {
  url: string;
  // GET: the batch API's reads; PUT: a batch's input written to the customer's bucket (shared/gateway/batches/).
  method?: 'POST' | 'GET' | 'PUT';
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Parameters dropped under `x-gw-drop-unsupported-params`, for the `x-gw-dropped-params` response header. */
  dropped?: readonly string[];
  /**
   * Several calls that answer this one request together (Bedrock Titan embeds one text per call). The gateway sends
   * them in parallel, at most `concurrency` at a time, as one attempt: the first error answer is the attempt's
   * answer; otherwise `toOpenAIResponse` gets `{"answers": [<each JSON answer, in call order>]}`.
   */
  fanOut?: { calls: readonly UpstreamCall[]; concurrency: number };
}

export interface ProviderErrorSummary {
  message: string;
  type?: string;
  code?: string;
  param?: string | null;
  /** The status the error really stands for, when the provider's HTTP status misstates it (Bedrock's error type). */
  status?: number;
  /** Seconds to wait before retrying, from the provider's body (Gemini's RetryInfo), sent as `retry-after`. */
  retryAfterSeconds?: number;
}

/** Response headers of an upstream answer, as Node's http client gives them. */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/** OpenAI-format stream output. `raw` lets a pass-through provider skip re-serialising an unchanged chunk. */
export type StreamEvent =
  | { type: 'chunk'; chunk: Record<string, unknown>; raw?: string }
  | { type: 'error'; status?: number; error: ProviderErrorSummary; providerError?: unknown }
  | { type: 'done' };

/** Translates one upstream stream, fed byte chunks as they arrive (split anywhere). */
export interface StreamTranslator {
  push(bytes: Uint8Array): StreamEvent[];
  /** The upstream body ended; flush whatever is left. */
  end(): StreamEvent[];
}

/** An image link fetched by the gateway (its address rules, size cap and timeout), as base64 bytes. */
export interface FetchedImage {
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`: anything else was refused with a 400. */
  mediaType: string;
  base64: string;
}

/** Fetches one image link; failures are 400 GatewayErrors whose `param` is the given one. */
export type ImageFetcher = (url: string, param: string) => Promise<FetchedImage>;

/** What the gateway lends an adapter's `prepare` step (I/O a pure provider module cannot do itself). */
export interface PrepareServices {
  fetchImage: ImageFetcher;
}

export interface ProviderAdapter {
  readonly slug: string;
  readonly aliases: readonly string[];
  readonly endpoints: readonly Endpoint[];
  /**
   * Optional async step before `buildCall`, for providers that need I/O to build their request (Bedrock fetches
   * image links, since Converse takes image bytes only). Returns the input to build from; adapters without it
   * cost nothing.
   */
  prepare?(input: AdapterInput, services: PrepareServices): Promise<AdapterInput>;
  /** Builds the upstream call; throws a 400 GatewayError for a parameter the provider cannot honour. */
  buildCall(input: AdapterInput): Promise<UpstreamCall> | UpstreamCall;
  /**
   * Provider 2xx JSON → OpenAI JSON. Absent for pass-through providers, whose bytes go out unchanged. `headers`
   * are the answer's (Bedrock InvokeModel reports token counts there).
   */
  toOpenAIResponse?(input: AdapterInput, providerBody: unknown, headers?: UpstreamHeaders): Record<string, unknown>;
  /** Provider error body (parsed JSON, or the text when it is not JSON) → the parts of gw's error shape. */
  toOpenAIError(status: number, providerBody: unknown, headers?: UpstreamHeaders): ProviderErrorSummary;
  createStreamTranslator(input: AdapterInput): StreamTranslator;
}
