import { describe, expect, it } from 'vitest';
import { redact, redactText, REDACTED } from '../../../shared/observability/redact.js';

describe('redact: the one redaction function', () => {
  it('removes credential-shaped text wherever it appears in a string', () => {
    const samples = [
      'gwk_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      'sk-proj-abcdefghijklmnopqrstuvwx',
      'sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
      'Bearer abc.def-ghi_jkl~mno',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0abc.c2lnbmF0dXJlLXNpZ25hdHVyZQ',
      'AKIAABCDEFGHIJKLMNOP',
      'AIzaSyA-1234567890abcdefghijklmnopqrstu',
      '-----BEGIN PRIVATE KEY-----\nMIIEv...\n-----END PRIVATE KEY-----',
    ];
    for (const secret of samples) {
      const text = redactText(`before ${secret} after`);
      expect(text, secret).toBe(`before ${REDACTED} after`);
    }
  });

  it('replaces values under credential names, at any depth, and keeps token counts and ordinary text', () => {
    const input = {
      model: 'gpt-4o',
      max_tokens: 100,
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      headers: { Authorization: 'x', 'x-api-key': 'y', 'X-GW-API-KEY': 'z' },
      nested: [{ api_key: 'k', password: 'p', client_secret: 's', refresh_token: 'r', credentials: { any: 'thing' } }],
      text: 'the word token and secret are fine here',
    };
    expect(redact(input)).toEqual({
      model: 'gpt-4o',
      max_tokens: 100,
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED, 'X-GW-API-KEY': REDACTED },
      nested: [{ api_key: REDACTED, password: REDACTED, client_secret: REDACTED, refresh_token: REDACTED, credentials: REDACTED }],
      text: 'the word token and secret are fine here',
    });
  });

  it('never changes its input and survives hostile depth', () => {
    const input = { api_key: 'k' };
    redact(input);
    expect(input).toEqual({ api_key: 'k' });
    let deep: unknown = 'gwk_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    for (let i = 0; i < 200; i++) deep = { next: deep };
    expect(JSON.stringify(redact(deep))).not.toContain('gwk_');
  });
});
