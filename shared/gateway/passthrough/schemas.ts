import * as z from 'zod';

/**
 * The request bodies of the pass-through endpoints, as far as gw reads them: only what routing, policies and
 * the log record need, checked before anything is forwarded. Every other field goes to the provider as sent,
 * so the objects are loose. scripts/openapi documents these.
 */
const model = z.string().min(1).optional().meta({ description: 'The provider’s model; required where the provider requires it, or supplied by a config target’s override_params.' });

export const imageGenerationRequestSchema = z
  .looseObject({ model, prompt: z.string().min(1) })
  .meta({ description: 'An OpenAI image generation request (`POST /v1/images/generations`).' });

export const speechRequestSchema = z
  .looseObject({
    model,
    input: z.string().min(1),
    voice: z.union([z.string().min(1), z.looseObject({ id: z.string() })]),
  })
  .meta({ description: 'An OpenAI text-to-speech request; the answer is the audio bytes, streamed as the provider sends them.' });

export const moderationRequestSchema = z
  .looseObject({ model, input: z.union([z.string(), z.array(z.unknown()).min(1)]) })
  .meta({ description: 'An OpenAI moderation request.' });

export const rerankRequestSchema = z
  .looseObject({
    model,
    query: z.string().min(1),
    documents: z.array(z.union([z.string(), z.looseObject({})])).min(1),
    top_n: z.int().min(1).optional(),
  })
  .meta({ description: 'A Cohere-style rerank request; answered by providers that have a rerank endpoint.' });

/** The form fields gw reads of a multipart request; the file parts go to the provider byte for byte. */
export const imageEditFormSchema = z
  .looseObject({ model, prompt: z.string().min(1) })
  .meta({ description: 'multipart/form-data: `image` (one or more files, or `image[]`), `prompt`, optional `mask` and the other OpenAI fields.' });

export const audioFileFormSchema = z
  .looseObject({ model })
  .meta({ description: 'multipart/form-data: `file` (the audio), `model` and the other OpenAI fields (`response_format` json, text, srt, verbose_json or vtt).' });
