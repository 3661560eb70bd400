import { describe, expect, it } from 'vitest';
import type { TargetSettings } from '../../../../shared/providers/types.js';
import { vertexRoute } from '../../../../shared/providers/vertex-ai/routes.js';
import { adapterInput, gatewayErrorOf } from '../google/helpers.js';

const vertex = (extra: Partial<NonNullable<TargetSettings['vertex']>> = {}) => ({ provider: 'vertex-ai', vertex: { projectId: 'my-project', region: 'us-central1', ...extra } });
const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });
const base = 'https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1';

describe('Vertex AI URLs', () => {
  it.each([
    ['gemini chat', adapterInput(chat('gemini-2.5-pro'), { target: vertex() }), 'gemini', `${base}/publishers/google/models/gemini-2.5-pro:generateContent`],
    ['gemini stream', adapterInput(chat('gemini-2.5-pro'), { stream: true, target: vertex() }), 'gemini', `${base}/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse`],
    ['gemini embeddings', adapterInput({ model: 'text-embedding-005', input: 'x' }, { endpoint: 'embeddings', target: vertex() }), 'gemini', `${base}/publishers/google/models/text-embedding-005:predict`],
    ['anthropic raw', adapterInput(chat('claude-sonnet-4@20250514'), { target: vertex() }), 'anthropic', `${base}/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict`],
    ['anthropic streamRaw', adapterInput(chat('claude-sonnet-4@20250514'), { stream: true, target: vertex() }), 'anthropic', `${base}/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`],
    [
      'global region',
      adapterInput(chat('gemini-2.5-flash'), { target: vertex({ region: 'global' }) }),
      'gemini',
      'https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
    ],
    [
      'request type header picks the publisher',
      adapterInput(chat('my-tuned-claude'), { target: vertex({ requestType: 'Anthropic' }) }),
      'anthropic',
      `${base}/publishers/anthropic/models/my-tuned-claude:rawPredict`,
    ],
    [
      'publisher-qualified model names',
      adapterInput(chat('publishers/anthropic/models/claude-opus-4-1@20250805'), { target: vertex() }),
      'anthropic',
      `${base}/publishers/anthropic/models/claude-opus-4-1@20250805:rawPredict`,
    ],
    [
      'custom host replaces scheme and host only',
      adapterInput(chat('gemini-2.5-flash'), { target: { ...vertex(), customHost: 'http://127.0.0.1:8080/' } }),
      'gemini',
      'http://127.0.0.1:8080/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    ],
  ])('%s', (_name, input, family, url) => {
    expect(vertexRoute(input)).toEqual({ family, url });
  });
});

describe('refused Vertex AI targets', () => {
  it.each([
    ['no project', { provider: 'vertex-ai', vertex: { region: 'us-central1' } }, chat('gemini-2.5-pro'), 'missing_vertex_project', 'x-gw-vertex-project-id'],
    ['no region', { provider: 'vertex-ai', vertex: { projectId: 'p-1' } }, chat('gemini-2.5-pro'), 'missing_vertex_region', 'x-gw-vertex-region'],
    ['no vertex settings at all', { provider: 'vertex-ai' }, chat('gemini-2.5-pro'), 'missing_vertex_project', 'x-gw-vertex-project-id'],
    ['a region that would change the host', vertex({ region: 'evil.com/x' }), chat('gemini-2.5-pro'), 'invalid_vertex_region', 'x-gw-vertex-region'],
    ['a project that would change the path', vertex({ projectId: '../../x' }), chat('gemini-2.5-pro'), 'invalid_vertex_project', 'x-gw-vertex-project-id'],
    ['an unknown request type', vertex({ requestType: 'llama' }), chat('gemini-2.5-pro'), 'invalid_vertex_request_type', 'x-vertex-llm-request-type'],
    ['another publisher', vertex(), chat('publishers/meta/models/llama-4'), 'unsupported_vertex_publisher', 'model'],
    ['a model that would change the path', vertex(), chat('gemini/../../x'), 'invalid_model', 'model'],
  ])('%s → 400', (_name, target, body, code, param) => {
    const error = gatewayErrorOf(() => vertexRoute(adapterInput(body, { target })));
    expect(error.status).toBe(400);
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
  });

  it('refuses embeddings with a Claude model', () => {
    const error = gatewayErrorOf(() => vertexRoute(adapterInput({ model: 'claude-sonnet-4', input: 'x' }, { endpoint: 'embeddings', target: vertex() })));
    expect(error.status).toBe(400);
    expect(error.code).toBe('unsupported_endpoint');
  });
});
