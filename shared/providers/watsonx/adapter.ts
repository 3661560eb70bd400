import { settings } from '../../settings.js';
import { noStreamTranslator } from '../common/no-stream.js';
import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { watsonxUrl } from './http.js';
import { IamTokenSource, isIamAccessToken } from './iam-token.js';
import { PROVIDER_NAME, toWatsonxChatBody, toWatsonxEmbeddingsBody } from './request.js';
import { summariseWatsonxError, toChatCompletion, toEmbeddingsList } from './response.js';
import { WatsonxStreamTranslator } from './stream.js';

/** One token cache per process, so every request with the same API key shares one IAM exchange per hour. */
let tokens: IamTokenSource | undefined;
function tokenSource(): IamTokenSource {
  tokens ??= new IamTokenSource({ url: settings().GW_WATSONX_IAM_URL });
  return tokens;
}

/**
 * IBM watsonx.ai (`/ml/v1/text/chat`, `chat_stream`, `embeddings`): the caller's credential is an IBM Cloud API
 * key, exchanged for an IAM access token (cached until shortly before it expires), or an IAM token itself.
 */
export const watsonxAdapter: ProviderAdapter = {
  slug: 'watsonx',
  aliases: ['ibm-watsonx', 'watsonx-ai'],
  endpoints: ['chat', 'embeddings'],

  async buildCall(input: AdapterInput): Promise<UpstreamCall> {
    const embeddings = input.endpoint === 'embeddings';
    // The body first: a bad request is refused before any IAM round trip.
    const body = embeddings ? toWatsonxEmbeddingsBody(input) : toWatsonxChatBody(input);
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json', accept: input.stream && !embeddings ? 'text/event-stream' : 'application/json' };
    const credential = input.target.apiKey;
    if (credential) headers.authorization = `Bearer ${isIamAccessToken(credential) ? credential : await tokenSource().accessToken(credential)}`;
    const path = embeddings ? 'text/embeddings' : input.stream ? 'text/chat_stream' : 'text/chat';
    return { url: watsonxUrl(input.target, path), headers, body: JSON.stringify(body) };
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown): Record<string, unknown> {
    if (input.endpoint === 'embeddings') return toEmbeddingsList(input.body.model, providerBody, input.body.encoding_format);
    return toChatCompletion(input.body.model, providerBody);
  },

  toOpenAIError: summariseWatsonxError,

  createStreamTranslator: (input: AdapterInput) => (input.endpoint === 'embeddings' ? noStreamTranslator(PROVIDER_NAME) : new WatsonxStreamTranslator(input.body.model)),
};
