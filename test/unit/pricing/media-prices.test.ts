import { describe, expect, it } from 'vitest';
import { costOfUsage, estimatedMediaUsage, withMediaUnits } from '../../../shared/observability/pricing/index.js';
import { MEDIA_PRICE_ROWS, mediaCost } from '../../../shared/observability/pricing/media-prices.js';
import { findProvider } from '../../../shared/providers/registry.js';
import { defaultModelIds } from '../../../shared/observability/pricing/default-prices.js';

// Media models are billed per image, character or minute of audio (docs/model-catalog.md#media-prices).
describe('media prices', () => {
  it('unsourced price: every media row belongs to a registered provider, names its source and the day it was written', () => {
    for (const row of MEDIA_PRICE_ROWS) {
      expect(findProvider(row.provider)?.slug).toBe(row.provider);
      expect(row.source).toMatch(/^https:\/\//);
      expect(row.written).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(defaultModelIds(row.provider)).toContain(row.model);
      expect(Object.keys(row.rates).length).toBeGreaterThan(0);
    }
  });

  it('image price by quality and size, then size, then the default; a unit the rates lack is unknown (null), never 0', () => {
    const rates = { per_image: { default: 0.04, 'hd 1024x1792': 0.12, '1024x1792': 0.08 } };
    expect(mediaCost(rates, { images: 2, imageQuality: 'hd', imageSize: '1024x1792' })).toBeCloseTo(0.24, 10);
    expect(mediaCost(rates, { images: 1, imageSize: '1024x1792' })).toBeCloseTo(0.08, 10);
    expect(mediaCost(rates, { images: 1, imageSize: '640x640' })).toBeCloseTo(0.04, 10);
    expect(mediaCost(rates, { characters: 10 })).toBeNull();
    expect(mediaCost({ per_audio_minute: 0.006 }, { audioSeconds: 30 })).toBeCloseTo(0.003, 10);
  });

  it('token usage wins: a media answer that reports tokens (gpt-image-1) is priced by its tokens, not per image', async () => {
    const reported = { input_tokens: 50, output_tokens: 4_160, total_tokens: 4_210 };
    expect(withMediaUnits('images/generations', { n: 1 }, reported, { data: [{}] })).toBe(reported);
    expect(await costOfUsage('openai', 'gpt-image-1', reported)).toBeGreaterThan(0.16);
  });

  it('units from request and answer: images counted in the answer, speech characters, reported or estimated audio seconds', async () => {
    expect(withMediaUnits('images/generations', { n: 3, size: '1024x1024' }, undefined, { data: [{}, {}] })).toEqual({ images: 2, image_size: '1024x1024' });
    expect(withMediaUnits('audio/speech', { input: 'héllo' }, undefined)).toEqual({ characters: 5 });
    expect(withMediaUnits('audio/transcriptions', {}, { type: 'duration', seconds: 26 })).toEqual({ type: 'duration', seconds: 26, audio_seconds: 26 });
    // A text answer has no duration: the file's size at 16 kbit/s, marked as estimated.
    expect(withMediaUnits('audio/transcriptions', { file: { bytes: 50_000 } }, undefined)).toEqual({ audio_seconds: 25, audio_seconds_estimated: true });
    expect(estimatedMediaUsage('audio/speech', { input: 'abc' })).toEqual({ characters: 3 });
    expect(estimatedMediaUsage('chat', {})).toBeUndefined();
    expect(await costOfUsage('openai', 'whisper-1', { audio_seconds: 60 })).toBe(0.006);
    expect(await costOfUsage('azure-openai', 'tts-1-hd', { characters: 1_000_000 })).toBe(30);
    expect(await costOfUsage('stability-ai', 'sd3.5-flash', { images: 1 })).toBeNull();
  });
});
