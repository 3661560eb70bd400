import { authoriseCall, bedrockRuntimeBase, readBedrockAuth } from '../../providers/bedrock/auth.js';
import { EventStreamDecoder } from '../../providers/bedrock/event-stream.js';
import { isRecord } from '../../providers/common/json-guards.js';
import type { OpenAIBody, UpstreamCall } from '../../providers/types.js';
import type { StreamFrameDecoder } from '../native-stream.js';
import type { NativeCallInput } from '../types.js';

/** The Messages API version Bedrock expects in the body. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Claude model ids on Bedrock: `anthropic.claude-…`, regional profiles (`us.anthropic.claude-…`), ARNs naming one. */
export function isBedrockClaude(body: OpenAIBody): boolean {
  return typeof body.model === 'string' && /(^|[.:/])anthropic\.claude/.test(body.model);
}

/**
 * Claude on Bedrock takes the Messages body through InvokeModel (`invoke`, `invoke-with-response-stream`): the
 * model in the URL, the API version and betas in the body, SigV4-signed like every Bedrock call. Bedrock's
 * Messages body has no `metadata`, so gw's end-user id is not sent.
 */
export async function buildBedrockClaudeCall(input: NativeCallInput): Promise<UpstreamCall> {
  const auth = readBedrockAuth(input.target);
  const { model, user: _user, metadata: _metadata, stream: _stream, ...body } = input.body;
  body.anthropic_version = BEDROCK_ANTHROPIC_VERSION;
  const betas = (input.target.anthropicBeta ?? input.requestHeaders['anthropic-beta'])?.split(',').map((beta) => beta.trim()).filter(Boolean);
  if (betas && betas.length > 0) body.anthropic_beta = betas;
  const operation = input.stream ? 'invoke-with-response-stream' : 'invoke';
  const url = `${bedrockRuntimeBase(input.target, auth.region)}/model/${encodeURIComponent(String(model))}/${operation}`;
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    ...input.forwardHeaders,
    'content-type': 'application/json',
    accept: input.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
  };
  return { url, method: 'POST', headers: await authoriseCall(auth, { url, headers, body: text }), body: text };
}

/** Exceptions inside a 200 Bedrock stream → the Anthropic error type with the same meaning. */
const ERROR_TYPES: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'overloaded_error',
  validationException: 'invalid_request_error',
  modelTimeoutException: 'timeout_error',
};

/**
 * InvokeModelWithResponseStream frames: each `chunk` event carries one Anthropic stream event, base64-encoded
 * under `bytes`; exceptions become Anthropic `error` events so the usual rules (fall back before content,
 * an error event after it) apply.
 */
export class BedrockInvokeStreamDecoder implements StreamFrameDecoder {
  private readonly frames = new EventStreamDecoder();

  push(bytes: Uint8Array): Array<{ event?: string; data: string }> {
    return this.frames.push(bytes).map((message) => {
      if (message.kind === 'event') {
        const encoded = isRecord(message.payload) && typeof message.payload.bytes === 'string' ? message.payload.bytes : '';
        return { data: Buffer.from(encoded, 'base64').toString('utf8') };
      }
      const type = message.kind === 'exception' ? message.exceptionType : message.errorCode;
      const text = message.kind === 'exception' ? (isRecord(message.payload) && typeof message.payload.message === 'string' ? message.payload.message : type) : message.errorMessage;
      return { data: JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[type] ?? 'api_error', message: text } }) };
    });
  }

  end(): Array<{ event?: string; data: string }> {
    return [];
  }
}
