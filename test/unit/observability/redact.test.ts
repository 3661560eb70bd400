import { describe, expect, it } from 'vitest';
import { KnownCredentials, maskCredentials, MIN_KNOWN_LENGTH, redact, redactText, REDACTED } from '../../../shared/observability/redact.js';
import { knownRequestCredentials, noteTargetCredentials } from '../../../shared/observability/request-credentials.js';

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

  it('redacts every documented *_token name by key, whatever its case, and keeps a logprob entry’s `token`', () => {
    const input = { authorization_token: 'a', 'X-Api-Token': 'b', 'x-amz-security-token': 'c', GITHUB_TOKEN: 'd', logprobs: [{ token: 'Hi', logprob: -0.1 }], completion_tokens: 4 };
    expect(redact(input)).toEqual({
      authorization_token: REDACTED,
      'X-Api-Token': REDACTED,
      'x-amz-security-token': REDACTED,
      GITHUB_TOKEN: REDACTED,
      logprobs: [{ token: 'Hi', logprob: -0.1 }],
      completion_tokens: 4,
    });
  });

  it('masks the known credentials of a request by value, whatever their shape, at any depth', () => {
    const known = new KnownCredentials();
    known.add('plain-credential-123');
    known.add('short');
    const record = { error: { message: 'Incorrect API key provided: plain-credential-123.' }, spans: [{ error: { message: 'x plain-credential-123 y plain-credential-123' } }], note: 'short stays' };
    expect(redact(record, known)).toEqual({
      error: { message: `Incorrect API key provided: ${REDACTED}.` },
      spans: [{ error: { message: `x ${REDACTED} y ${REDACTED}` } }],
      // Values under 8 characters are not masked by value: they would blank ordinary words.
      note: 'short stays',
    });
    expect(redactText('k=plain-credential-123', known)).toBe(`k=${REDACTED}`);
    // A client's own answer: only the known values go, the rest of the provider's body stays.
    expect(maskCredentials({ message: 'plain-credential-123 sk-abcdefghijklmnopqrstuv' }, known)).toEqual({ message: `${REDACTED} sk-abcdefghijklmnopqrstuv` });
    const untouched = { a: 'b' };
    expect(maskCredentials(untouched, new KnownCredentials())).toBe(untouched);
  });

  it('masks a credential shorter than MIN_KNOWN_LENGTH only where it stands as a credential', () => {
    const known = new KnownCredentials();
    known.add('abc12');
    expect(MIN_KNOWN_LENGTH).toBe(8);
    expect(known.size).toBe(1);
    // Quoted after a word that labels a credential, as a whole field, as a JSON string value in raw JSON text.
    expect(known.mask('Incorrect API key provided: abc12. You can find your API key …')).toBe(`Incorrect API key provided: ${REDACTED}. You can find your API key …`);
    expect(known.mask('Authorization: Bearer abc12')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(known.mask('x-api-token=abc12')).toBe(`x-api-token=${REDACTED}`);
    expect(known.mask('{"presented":"abc12"}')).toBe(`{"presented":"${REDACTED}"}`);
    expect(redact({ echoed: 'abc12' }, known)).toEqual({ echoed: REDACTED });
    // Elsewhere, and inside longer words, it is ordinary text.
    expect(known.mask('the abc12 value is ordinary')).toBe('the abc12 value is ordinary');
    expect(known.mask('key provided: abc123 and xabc12')).toBe('key provided: abc123 and xabc12');
    // Regex characters in a short credential are literal.
    const odd = new KnownCredentials();
    odd.add('a.b*c');
    expect(odd.mask('token a.b*c, token aXbbc')).toBe(`token ${REDACTED}, token aXbbc`);
  });

  it('collects every credential a target carries: API key, AWS keys and session token, a service account’s private key', () => {
    const request = {};
    const privateKey = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----\n';
    noteTargetCredentials(request, {
      apiKey: 'azure-or-vertex-token-1',
      aws: { accessKeyId: 'AKIAEXAMPLEEXAMPLE00', secretAccessKey: 'aws-secret-access-key-1', sessionToken: 'aws-session-token-1' },
      vertex: { serviceAccountJson: JSON.stringify({ type: 'service_account', private_key: privateKey, private_key_id: 'pkid-0123456789' }) },
    });
    const known = knownRequestCredentials(request)!;
    const text = redactText('azure-or-vertex-token-1 aws-secret-access-key-1 aws-session-token-1 pkid-0123456789', known);
    expect(text).toBe([REDACTED, REDACTED, REDACTED, REDACTED].join(' '));
    expect(knownRequestCredentials({})).toBeUndefined();
  });
});

describe('redact copies on write (issue #34)', () => {
  it('shares what has nothing to redact, copies only the branches it changes, and never changes its input', () => {
    const clean = { role: 'user', content: 'hello', usage: { prompt_tokens: 3 } };
    const input = { model: 'gpt-4o', messages: [clean, { role: 'user', content: 'key gwk_AbCdEfGhIjKlMnOp please' }], extra: { api_key: 'k', keep: [1, 2] } };
    const frozen = JSON.stringify(input);
    const redacted = redact(input);
    expect(redacted).toEqual({ model: 'gpt-4o', messages: [clean, { role: 'user', content: `key ${REDACTED} please` }], extra: { api_key: REDACTED, keep: [1, 2] } });
    expect(JSON.stringify(input)).toBe(frozen);
    expect(redacted).not.toBe(input);
    expect(redacted.messages).not.toBe(input.messages);
    expect(redacted.messages[0]).toBe(clean);
    expect(redacted.extra.keep).toBe(input.extra.keep);
    const untouched = { model: 'gpt-4o', messages: [clean], usage: { total_tokens: 7 } };
    expect(redact(untouched)).toBe(untouched);
  });

  it('still turns class instances and bytes into plain values, as before', () => {
    class Thing {
      name = 'x';
    }
    const redacted = redact({ thing: new Thing(), bytes: Buffer.from('sk-proj-abcdefghijklmnopqrstuvwx') });
    expect(Object.getPrototypeOf(redacted.thing)).toBe(Object.prototype);
    expect(redacted).toEqual({ thing: { name: 'x' }, bytes: REDACTED });
  });
});
