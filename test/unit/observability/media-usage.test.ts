import { describe, expect, it } from 'vitest';
import { withMediaUnits } from '../../../shared/observability/pricing/media-units.js';
import { normaliseUsage } from '../../../shared/observability/usage.js';

// The usage block a media request's log record keeps (issue #47): what it was billed by, from what the pipeline
// metered (withMediaUnits), so the request-log columns can hold it and a row can be re-priced.
describe('media units in the log record usage', () => {
  it('media units are lost from request logs unless usage keeps them: images with the size and quality that priced them, characters, audio seconds', () => {
    expect(normaliseUsage(withMediaUnits('images/generations', { n: 2, size: '1024x1792', quality: 'hd' }, undefined, { data: [{}, {}] }))).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
      images: 2,
      image_size: '1024x1792',
      image_quality: 'hd',
    });
    expect(normaliseUsage(withMediaUnits('audio/speech', { input: 'héllo' }, undefined))).toMatchObject({ characters: 5, total_tokens: 0 });
    expect(normaliseUsage(withMediaUnits('audio/transcriptions', {}, { type: 'duration', seconds: 26 }))).toMatchObject({ audio_seconds: 26 });
  });

  it('keeps an image size or quality only beside images, and only as long as a price key can be', () => {
    expect(normaliseUsage({ prompt_tokens: 3, completion_tokens: 4, image_size: '1024x1024' })).not.toHaveProperty('image_size');
    const long = normaliseUsage({ images: 1, image_size: 'x'.repeat(65), image_quality: 'hd' });
    expect(long).not.toHaveProperty('image_size');
    expect(long).toMatchObject({ images: 1, image_quality: 'hd' });
  });
});
