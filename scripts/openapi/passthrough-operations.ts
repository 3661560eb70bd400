import * as z from 'zod';
import { PASSTHROUGH_ROUTES } from '../../shared/gateway/passthrough/endpoints.js';
import type { OpenApiOperation } from '../../shared/control-plane/openapi-operation.js';

type InferenceOperation = (path: string, operationId: string, summary: string, body: z.ZodType, streams: boolean) => OpenApiOperation;

const OPERATIONS: Record<string, { operationId: string; summary: string }> = {
  'images/generations': { operationId: 'createImage', summary: 'Image generation, passed through to the provider (OpenAI, Azure OpenAI, xAI, Together, DeepInfra)' },
  'images/edits': { operationId: 'editImage', summary: 'Image edit (multipart/form-data), passed through byte for byte' },
  'audio/speech': { operationId: 'createSpeech', summary: 'Text to speech: the provider’s audio bytes, streamed as they arrive' },
  'audio/transcriptions': { operationId: 'createTranscription', summary: 'Audio transcription (multipart/form-data); JSON or text answer' },
  'audio/translations': { operationId: 'createTranslation', summary: 'Audio translation to English (multipart/form-data); JSON or text answer' },
  moderations: { operationId: 'createModeration', summary: 'Moderation, passed through (OpenAI, Mistral)' },
  rerank: { operationId: 'rerank', summary: 'Cohere-style rerank, for providers that have it (Together, vLLM)' },
};

const audioSchema = z.string().meta({ description: 'The audio bytes, in the provider’s content-type (audio/mpeg, audio/wav, …).' });

/** The pass-through endpoints (shared/gateway/passthrough/): a provider without the endpoint is a 400 unsupported_endpoint. */
export function passthroughOperations(inference: InferenceOperation): OpenApiOperation[] {
  return PASSTHROUGH_ROUTES.map((route) => {
    const { operationId, summary } = OPERATIONS[route.endpoint];
    const operation = inference(route.path, operationId, summary, route.schema, false);
    const multipart = route.body === 'multipart' ? { bodyContentType: 'multipart/form-data' } : {};
    if (route.endpoint === 'audio/speech') {
      const ok = operation.responses['200'];
      operation.responses['200'] = { ...ok, contentType: 'application/octet-stream', schema: audioSchema };
    }
    return { ...operation, ...multipart, description: `${operation.description} See docs/passthrough.md for the providers that serve it.` };
  });
}
