import { badRequest } from '../../http/errors.js';
import { geminiModelId } from '../google/model-id.js';
import type { AdapterInput } from '../types.js';

/** Which publisher's wire format a Vertex AI call speaks. */
export type VertexFamily = 'gemini' | 'anthropic';

export interface VertexRoute {
  family: VertexFamily;
  url: string;
}

const REQUEST_TYPES: Record<string, VertexFamily> = { gemini: 'gemini', google: 'gemini', anthropic: 'anthropic', claude: 'anthropic' };
const PROJECT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9.:_-]*$/;
const REGION_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The family of a call: from `X-Vertex-LLM-Request-Type` (or the spec's `X-CloudB-LLM-Request-Type`) when sent,
 * else from the model name (`claude…` is Anthropic's, anything else Google's); a `publishers/<p>/models/…` model
 * name says it outright.
 */
export function vertexFamily(input: AdapterInput): VertexFamily {
  const requestType = input.target.vertex?.requestType?.trim().toLowerCase();
  if (requestType) {
    const family = REQUEST_TYPES[requestType];
    if (!family) {
      throw badRequest('invalid_vertex_request_type', `x-vertex-llm-request-type must be one of ${Object.keys(REQUEST_TYPES).join(', ')}`, 'x-vertex-llm-request-type');
    }
    return family;
  }
  const { publisher, model } = splitModel(input.body.model);
  if (publisher === 'anthropic') return 'anthropic';
  if (publisher === 'google') return 'gemini';
  if (publisher) throw badRequest('unsupported_vertex_publisher', `gw serves Google and Anthropic models on Vertex AI, not publisher '${publisher}'`, 'model');
  return model.toLowerCase().startsWith('claude') ? 'anthropic' : 'gemini';
}

/**
 * `https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`
 * (`global` has no region prefix in the host). A custom host replaces the scheme and host only.
 */
export function vertexRoute(input: AdapterInput): VertexRoute {
  const family = vertexFamily(input);
  const { projectId, region } = vertexLocation(input);
  const host = input.target.customHost?.replace(/\/+$/, '') ?? (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`);
  const model = geminiModelId(splitModel(input.body.model).model);
  if (family === 'anthropic' && input.endpoint !== 'chat') {
    throw badRequest('unsupported_endpoint', `Claude models on Vertex AI support chat only, not ${input.endpoint}`, 'model');
  }
  const publisher = family === 'anthropic' ? 'anthropic' : 'google';
  const method = vertexMethod(family, input);
  return { family, url: `${host}/v1/projects/${projectId}/locations/${region}/publishers/${publisher}/models/${model}:${method}` };
}

function vertexMethod(family: VertexFamily, input: AdapterInput): string {
  if (input.endpoint === 'embeddings') return 'predict';
  if (family === 'anthropic') return input.stream ? 'streamRawPredict' : 'rawPredict';
  return input.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
}

export function vertexLocation(input: AdapterInput): { projectId: string; region: string } {
  const projectId = input.target.vertex?.projectId;
  const region = input.target.vertex?.region?.toLowerCase();
  if (!projectId) throw badRequest('missing_vertex_project', 'Vertex AI needs the Google Cloud project: send x-gw-vertex-project-id', 'x-gw-vertex-project-id');
  if (!region) throw badRequest('missing_vertex_region', 'Vertex AI needs the region (e.g. us-central1 or global): send x-gw-vertex-region', 'x-gw-vertex-region');
  if (!PROJECT_PATTERN.test(projectId)) throw badRequest('invalid_vertex_project', 'x-gw-vertex-project-id must be a Google Cloud project id or number', 'x-gw-vertex-project-id');
  if (!REGION_PATTERN.test(region)) throw badRequest('invalid_vertex_region', 'x-gw-vertex-region must be a region name such as us-central1, europe-west4 or global', 'x-gw-vertex-region');
  return { projectId, region };
}

function splitModel(raw: unknown): { publisher?: string; model: string } {
  const model = typeof raw === 'string' ? raw.trim() : '';
  const match = /^publishers\/([a-z0-9-]+)\/models\/(.+)$/.exec(model);
  return match ? { publisher: match[1], model: match[2] } : { model };
}
