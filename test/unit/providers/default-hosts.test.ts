import { describe, expect, it } from 'vitest';
import { passthroughRoute } from '../../../shared/gateway/passthrough/endpoints.js';
import type { PassthroughPath } from '../../../shared/gateway/passthrough/paths.js';
import { readPassthroughPayload } from '../../../shared/gateway/passthrough/payload.js';
import { readRequestOptions } from '../../../shared/gateway/request-options.js';
import { leafFromHeaders, resolveLeafTarget } from '../../../shared/gateway/resolve-target.js';
import { passthroughSupport } from '../../../shared/providers/passthrough-registry.js';
import { PASSTHROUGH_ENDPOINTS, type PassthroughEndpoint } from '../../../shared/providers/passthrough-types.js';
import { providerEntries } from '../../../shared/providers/registry.js';
import type { Endpoint, UpstreamCall } from '../../../shared/providers/types.js';

// Issue #47, done-when: `x-gw-provider` accepts every slug and alias with its default host. For EVERY registered name,
// the request headers a client sends (x-gw-provider, Authorization, and the provider's coordinates where its host is
// per account, never x-gw-custom-host) go through gw's own header reading and target resolution, and the call the
// provider builds must go to the host and path its API reference documents, with its documented auth header. The
// expected URLs are written here from the providers' references, not read from the catalogue, so a wrong or changed
// default host fails; a provider or alias added to the registry without a row here fails too.

const TOKEN = 'provider-token-1';
const IAM_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0In0.c2ln'; // an IAM access token: watsonx skips the key exchange
const CF = '0123456789abcdef0123456789abcdef';
const WATSONX_PROJECT = '12345678-1234-1234-1234-123456789abc';

/** What one provider's default call looks like: per endpoint the URL, and the header that carries the credential. */
interface Expected {
  headers?: Record<string, string>;
  token?: string;
  model?: Partial<Record<Endpoint | PassthroughEndpoint, string>>;
  urls: Partial<Record<Endpoint | PassthroughEndpoint, string>>;
  auth: [header: string, value: string];
}

const bearer: [string, string] = ['authorization', `Bearer ${TOKEN}`];

/** OpenAI-compatible hosts (each provider's API reference): chat, completions and embeddings under one base URL. */
function compatible(base: string, endpoints: Array<Endpoint | PassthroughEndpoint>, extra: Partial<Expected> = {}): Expected {
  const paths: Record<string, string> = { chat: '/chat/completions', completions: '/completions', embeddings: '/embeddings' };
  return { urls: Object.fromEntries(endpoints.map((endpoint) => [endpoint, `${base}${paths[endpoint] ?? `/${endpoint}`}`])), auth: bearer, ...extra };
}

const OPENAI_MEDIA: PassthroughEndpoint[] = ['images/generations', 'images/edits', 'audio/speech', 'audio/transcriptions', 'audio/translations', 'moderations'];
const AUDIO_IN: PassthroughEndpoint[] = ['audio/transcriptions', 'audio/translations'];
const ALL: Endpoint[] = ['chat', 'completions', 'embeddings'];

const EXPECTED: Record<string, Expected> = {
  openai: compatible('https://api.openai.com/v1', [...ALL, ...OPENAI_MEDIA]),
  groq: compatible('https://api.groq.com/openai/v1', ['chat', 'audio/speech', ...AUDIO_IN]),
  'mistral-ai': compatible('https://api.mistral.ai/v1', ['chat', 'embeddings', 'moderations']),
  'together-ai': compatible('https://api.together.xyz/v1', [...ALL, 'images/generations', 'audio/speech', ...AUDIO_IN, 'rerank']),
  deepseek: compatible('https://api.deepseek.com/v1', ['chat', 'completions']),
  'fireworks-ai': compatible('https://api.fireworks.ai/inference/v1', ALL),
  openrouter: compatible('https://openrouter.ai/api/v1', ['chat', 'completions']),
  'perplexity-ai': compatible('https://api.perplexity.ai', ['chat']),
  'x-ai': compatible('https://api.x.ai/v1', ['chat', 'completions', 'images/generations']),
  cerebras: compatible('https://api.cerebras.ai/v1', ['chat', 'completions']),
  deepinfra: compatible('https://api.deepinfra.com/v1/openai', [...ALL, 'images/generations', 'audio/speech', ...AUDIO_IN]),
  ollama: compatible('http://127.0.0.1:11434/v1', ALL),
  'lm-studio': compatible('http://127.0.0.1:1234/v1', ALL),
  huggingface: compatible('https://router.huggingface.co/v1', ['chat']),
  'github-models': compatible('https://models.github.ai/inference', ['chat', 'embeddings']),
  'nvidia-nim': compatible('https://integrate.api.nvidia.com/v1', ALL),
  sambanova: compatible('https://api.sambanova.ai/v1', ['chat', 'embeddings', ...AUDIO_IN]),
  nebius: compatible('https://api.tokenfactory.nebius.com/v1', [...ALL, 'images/generations']),
  'novita-ai': compatible('https://api.novita.ai/v3/openai', ALL),
  hyperbolic: compatible('https://api.hyperbolic.xyz/v1', ['chat', 'completions']),
  lambda: compatible('https://api.lambda.ai/v1', ['chat', 'completions']),
  moonshot: compatible('https://api.moonshot.ai/v1', ['chat']),
  dashscope: compatible('https://dashscope-intl.aliyuncs.com/compatible-mode/v1', ['chat', 'embeddings']),
  'dashscope-cn': compatible('https://dashscope.aliyuncs.com/compatible-mode/v1', ['chat', 'embeddings']),
  zhipu: compatible('https://open.bigmodel.cn/api/paas/v4', ['chat', 'embeddings']),
  minimax: compatible('https://api.minimax.io/v1', ['chat']),
  ai21: compatible('https://api.ai21.com/studio/v1', ['chat']),
  // Per-account hosts: the account header fills the documented template.
  'cloudflare-workers-ai': compatible(`https://api.cloudflare.com/client/v4/accounts/${CF}/ai/v1`, ['chat', 'embeddings'], { headers: { 'x-gw-cloudflare-account-id': CF } }),
  databricks: compatible('https://dbc-1234abcd-5678.cloud.databricks.com/serving-endpoints', ALL, { headers: { 'x-gw-databricks-workspace': 'dbc-1234abcd-5678.cloud.databricks.com' } }),
  'snowflake-cortex': compatible('https://myorg-myaccount.snowflakecomputing.com/api/v2/cortex/v1', ['chat'], { headers: { 'x-gw-snowflake-account': 'myorg-myaccount' } }),
  'azure-ai-inference': {
    headers: { 'x-gw-azure-ai-resource': 'my-foundry' },
    urls: {
      chat: 'https://my-foundry.services.ai.azure.com/models/chat/completions?api-version=2024-05-01-preview',
      embeddings: 'https://my-foundry.services.ai.azure.com/models/embeddings?api-version=2024-05-01-preview',
    },
    auth: ['api-key', TOKEN],
  },
  'azure-openai': {
    headers: { 'x-gw-azure-resource-name': 'my-resource', 'x-gw-azure-deployment-id': 'my-deployment', 'x-gw-azure-api-version': '2024-10-21' },
    urls: Object.fromEntries(
      (['chat', 'completions', 'embeddings', 'images/generations', 'images/edits', 'audio/speech', ...AUDIO_IN] as const).map((endpoint) => [
        endpoint,
        `https://my-resource.openai.azure.com/openai/deployments/my-deployment/${endpoint === 'chat' ? 'chat/completions' : endpoint}?api-version=2024-10-21`,
      ]),
    ),
    auth: ['api-key', TOKEN],
  },
  anthropic: { urls: { chat: 'https://api.anthropic.com/v1/messages' }, auth: ['x-api-key', TOKEN] },
  bedrock: {
    headers: { 'x-gw-aws-access-key-id': 'AKIDEXAMPLE', 'x-gw-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', 'x-gw-aws-region': 'eu-west-1' },
    model: { chat: 'anthropic.claude-3-haiku-20240307-v1:0', embeddings: 'amazon.titan-embed-text-v2:0' },
    urls: {
      chat: 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse',
      embeddings: 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke',
    },
    auth: ['authorization', 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/'],
  },
  google: {
    model: { chat: 'gemini-2.0-flash', embeddings: 'text-embedding-004' },
    urls: {
      chat: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent',
      embeddings: 'https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents',
    },
    auth: ['x-goog-api-key', TOKEN],
  },
  'vertex-ai': {
    headers: { 'x-gw-vertex-project-id': 'my-project', 'x-gw-vertex-region': 'europe-west4' },
    model: { chat: 'gemini-2.0-flash', embeddings: 'text-embedding-005' },
    urls: {
      chat: 'https://europe-west4-aiplatform.googleapis.com/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent',
      embeddings: 'https://europe-west4-aiplatform.googleapis.com/v1/projects/my-project/locations/europe-west4/publishers/google/models/text-embedding-005:predict',
    },
    auth: bearer,
  },
  cohere: {
    model: { chat: 'command-a-03-2025', embeddings: 'embed-v4.0', rerank: 'rerank-v3.5' },
    urls: { chat: 'https://api.cohere.com/v2/chat', embeddings: 'https://api.cohere.com/v2/embed', rerank: 'https://api.cohere.com/v2/rerank' },
    auth: bearer,
  },
  'voyage-ai': {
    model: { embeddings: 'voyage-3.5', rerank: 'rerank-2.5' },
    urls: { embeddings: 'https://api.voyageai.com/v1/embeddings', rerank: 'https://api.voyageai.com/v1/rerank' },
    auth: bearer,
  },
  'jina-ai': {
    model: { embeddings: 'jina-embeddings-v3', rerank: 'jina-reranker-v2-base-multilingual' },
    urls: { embeddings: 'https://api.jina.ai/v1/embeddings', rerank: 'https://api.jina.ai/v1/rerank' },
    auth: bearer,
  },
  watsonx: {
    headers: { 'x-gw-watsonx-project-id': WATSONX_PROJECT, 'x-gw-watsonx-region': 'eu-de' },
    token: IAM_TOKEN,
    model: { chat: 'ibm/granite-3-8b-instruct', embeddings: 'ibm/slate-125m-english-rtrvr-v2' },
    urls: { chat: 'https://eu-de.ml.cloud.ibm.com/ml/v1/text/chat?version=2025-02-06', embeddings: 'https://eu-de.ml.cloud.ibm.com/ml/v1/text/embeddings?version=2025-02-06' },
    auth: ['authorization', `Bearer ${IAM_TOKEN}`],
  },
  replicate: {
    model: { chat: 'meta/meta-llama-3-8b-instruct' },
    urls: { chat: 'https://api.replicate.com/v1/models/meta/meta-llama-3-8b-instruct/predictions' },
    auth: bearer,
  },
  'stability-ai': {
    model: { 'images/generations': 'stable-image-core' },
    urls: { 'images/generations': 'https://api.stability.ai/v2beta/stable-image/generate/core' },
    auth: bearer,
  },
  elevenlabs: {
    model: { 'audio/speech': 'eleven_multilingual_v2' },
    urls: { 'audio/speech': 'https://api.elevenlabs.io/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/stream' },
    auth: ['xi-api-key', TOKEN],
  },
  deepgram: { model: { 'audio/transcriptions': 'nova-3' }, urls: { 'audio/transcriptions': 'https://api.deepgram.com/v1/listen' }, auth: ['authorization', `Token ${TOKEN}`] },
  // AssemblyAI's job starts with the upload; its later calls go to the same base URL (assemblyai.test.ts).
  assemblyai: { model: { 'audio/transcriptions': 'universal-2' }, urls: { 'audio/transcriptions': 'https://api.assemblyai.com/v2/upload' }, auth: ['authorization', TOKEN] },
};

/** The names `x-gw-provider` takes for each provider besides its slug (docs/providers.md): a dropped alias fails here. */
const ALIASES: Record<string, string[]> = {
  'mistral-ai': ['mistral'], 'together-ai': ['together'], 'fireworks-ai': ['fireworks'], 'perplexity-ai': ['perplexity'], 'x-ai': ['xai'],
  'lm-studio': ['lmstudio'], huggingface: ['hugging-face', 'hf'], 'github-models': ['github'], 'nvidia-nim': ['nvidia', 'nim'],
  nebius: ['nebius-ai-studio'], 'novita-ai': ['novita'], lambda: ['lambda-ai'], moonshot: ['moonshot-ai', 'kimi'], dashscope: ['alibaba', 'qwen'],
  'dashscope-cn': ['alibaba-cn'], zhipu: ['zhipu-ai', 'glm', 'bigmodel'], 'cloudflare-workers-ai': ['cloudflare', 'workers-ai'],
  'snowflake-cortex': ['snowflake'], 'azure-ai-inference': ['azure-ai', 'azure-ai-foundry'], ai21: ['ai21-labs'], 'azure-openai': ['clouda', 'azure'],
  bedrock: ['cloudc'], google: ['gemini'], 'vertex-ai': ['cloudb'], 'voyage-ai': ['voyage'], 'jina-ai': ['jina'], watsonx: ['ibm-watsonx', 'watsonx-ai'],
  'stability-ai': ['stability'], elevenlabs: ['eleven-labs', '11labs'], assemblyai: ['assembly-ai'],
};

/** Names gw serves only at a caller's own host: `x-gw-provider` alone is a 400 asking for x-gw-custom-host. */
const NO_DEFAULT_HOST = new Set(['vllm']);

const ENDPOINT_OF_PATH: Record<PassthroughEndpoint, PassthroughPath> = {
  'images/generations': '/v1/images/generations',
  'images/edits': '/v1/images/edits',
  'audio/speech': '/v1/audio/speech',
  'audio/transcriptions': '/v1/audio/transcriptions',
  'audio/translations': '/v1/audio/translations',
  moderations: '/v1/moderations',
  rerank: '/v1/rerank',
};

const NAMES = providerEntries().flatMap((entry) => [entry.slug, ...entry.aliases].map((name) => [name, entry.slug] as const));

function requestHeaders(name: string, expected: Expected): Record<string, string> {
  return { 'x-gw-provider': name, authorization: `Bearer ${expected.token ?? TOKEN}`, ...expected.headers };
}

/** The call gw builds for `endpoint` from these request headers alone: the same header reading and resolution as a request. */
async function defaultCall(headers: Record<string, string>, endpoint: Endpoint | PassthroughEndpoint, model: string): Promise<UpstreamCall> {
  const options = readRequestOptions(headers);
  const leaf = leafFromHeaders(options);
  if (!isPassthrough(endpoint)) {
    const resolved = await resolveLeafTarget(leaf, options, endpoint, { headers }, 'ws-default-hosts');
    const body = endpoint === 'embeddings' ? { model, input: 'hi' } : endpoint === 'completions' ? { model, prompt: 'hi' } : { model, messages: [{ role: 'user', content: 'hi' }] };
    return resolved.adapter.buildCall({ endpoint, body, stream: false, target: resolved.target, forwardHeaders: resolved.forwardHeaders });
  }
  const resolved = await resolveLeafTarget(leaf, options, undefined, { headers }, 'ws-default-hosts');
  const support = passthroughSupport(resolved.target.provider)!;
  const route = passthroughRoute(ENDPOINT_OF_PATH[endpoint]);
  const [raw, contentType] = route.body === 'json' ? jsonBody(endpoint, model) : await formBody(route.fileField!, model);
  const payload = await readPassthroughPayload(route, raw, contentType, 1 << 20);
  const input = { endpoint, body: payload.bytes, contentType: payload.contentType, target: resolved.target, forwardHeaders: resolved.forwardHeaders, fields: payload.fields };
  return support.buildCall(support.prepare ? await support.prepare(input) : input);
}

function isPassthrough(endpoint: Endpoint | PassthroughEndpoint): endpoint is PassthroughEndpoint {
  return (PASSTHROUGH_ENDPOINTS as readonly string[]).includes(endpoint);
}

function jsonBody(endpoint: PassthroughEndpoint, model: string): [Buffer, string] {
  const bodies: Partial<Record<PassthroughEndpoint, Record<string, unknown>>> = {
    'images/generations': { model, prompt: 'a lighthouse at dusk' },
    'audio/speech': { model, input: 'Hello', voice: model.startsWith('eleven_') ? '21m00Tcm4TlvDq8ikWAM' : 'alloy' },
    moderations: { model, input: 'hi' },
    rerank: { model, query: 'capital of France', documents: ['Paris is the capital of France.', 'Berlin'] },
  };
  return [Buffer.from(JSON.stringify(bodies[endpoint])), 'application/json'];
}

async function formBody(fileField: string, model: string): Promise<[Buffer, string]> {
  const form = new FormData();
  form.set('model', model);
  if (fileField === 'image') form.set('prompt', 'a hat');
  form.set(fileField, new Blob([new Uint8Array([82, 73, 70, 70])], { type: fileField === 'image' ? 'image/png' : 'audio/wav' }), fileField === 'image' ? 'in.png' : 'in.wav');
  const request = new Request('http://gw.invalid/', { method: 'POST', body: form });
  return [Buffer.from(await request.arrayBuffer()), request.headers.get('content-type')!];
}

describe('default host of every provider slug and alias (issue #47)', () => {
  it('every registered provider has its documented default host written here (a new slug without one fails)', () => {
    const missing = providerEntries().map((entry) => entry.slug).filter((slug) => !EXPECTED[slug] && !NO_DEFAULT_HOST.has(slug));
    expect(missing).toEqual([]);
  });

  it('every documented alias names its provider, and the registry has no alias not written here', () => {
    for (const entry of providerEntries()) expect([...entry.aliases], entry.slug).toEqual(ALIASES[entry.slug] ?? []);
  });

  it.each(NAMES.filter(([, slug]) => EXPECTED[slug]))('default host: x-gw-provider %s (→ %s) without x-gw-custom-host calls the documented URL with its auth header', async (name, slug) => {
    const expected = EXPECTED[slug];
    const served = [...providerEntries().find((entry) => entry.slug === slug)!.endpoints, ...(passthroughSupport(slug)?.endpoints ?? [])];
    // Every endpoint the provider serves has its URL here, and no more: the two lists are one.
    expect([...served].sort()).toEqual(Object.keys(expected.urls).sort());
    for (const endpoint of served) {
      const call = await defaultCall(requestHeaders(name, expected), endpoint, expected.model?.[endpoint] ?? 'some-model');
      const url = call.url.split('?')[0] + (expected.urls[endpoint]!.includes('?') ? `?${call.url.split('?')[1]}` : '');
      expect(url, `${name} ${endpoint}`).toBe(expected.urls[endpoint]);
      const [header, value] = expected.auth;
      expect(call.headers[header], `${name} ${endpoint}: ${header}`).toMatch(new RegExp(`^${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    }
  });

  it('no default host: a provider served only at the caller\'s own host is a 400 naming x-gw-custom-host', async () => {
    for (const slug of NO_DEFAULT_HOST) {
      const error = await defaultCall({ 'x-gw-provider': slug, authorization: `Bearer ${TOKEN}` }, 'chat', 'm').catch((caught: unknown) => caught);
      expect(error, slug).toMatchObject({ status: 400, code: 'custom_host_required', param: 'x-gw-custom-host' });
    }
  });
});

/** The coordinates a host template cannot do without (the others have documented defaults: api-version, region). */
const REQUIRED: Record<string, Record<string, string>> = {
  'cloudflare-workers-ai': { 'x-gw-cloudflare-account-id': 'missing_account' },
  databricks: { 'x-gw-databricks-workspace': 'missing_account' },
  'snowflake-cortex': { 'x-gw-snowflake-account': 'missing_account' },
  'azure-ai-inference': { 'x-gw-azure-ai-resource': 'missing_account' },
  'azure-openai': { 'x-gw-azure-resource-name': 'missing_azure_resource', 'x-gw-azure-deployment-id': 'missing_azure_deployment' },
  'vertex-ai': { 'x-gw-vertex-project-id': 'missing_vertex_project', 'x-gw-vertex-region': 'missing_vertex_region' },
  bedrock: { 'x-gw-aws-region': 'missing_aws_region' },
  watsonx: { 'x-gw-watsonx-project-id': 'missing_account' },
};

describe('a per-account host without its account (issue #47)', () => {
  it.each(NAMES.filter(([, slug]) => REQUIRED[slug]))('missing account: %s (→ %s) without a coordinate its host template needs is a 400 naming that header', async (name, slug) => {
    const expected = EXPECTED[slug];
    for (const endpoint of Object.keys(expected.urls) as Endpoint[]) {
      for (const [header, code] of Object.entries(REQUIRED[slug])) {
        const headers = requestHeaders(name, expected);
        delete headers[header];
        const error = await defaultCall(headers, endpoint, expected.model?.[endpoint] ?? 'some-model').then(
          (call) => call,
          (caught: unknown) => caught,
        );
        expect(error, `${name} ${endpoint} without ${header}`).toMatchObject({ status: 400, type: 'invalid_request_error', code, param: header });
        expect((error as Error).message).toContain(header);
      }
    }
  });
});
