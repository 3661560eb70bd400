import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidSettingsError, parseSettings } from '../../../shared/settings.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('JWT settings', () => {
  it('are off by default, with a 30 s clock tolerance', () => {
    const settings = parseSettings({});
    expect(settings.GW_JWT_JWKS_URL).toBeUndefined();
    expect(settings.GW_JWT_SECRET).toBeUndefined();
    expect(settings.GW_JWT_CLOCK_TOLERANCE_S).toBe(30);
  });

  it('read a JWKS URL, issuer and audience', () => {
    const settings = parseSettings({ GW_JWT_JWKS_URL: 'https://idp.example/.well-known/jwks.json', GW_JWT_ISSUER: 'https://idp.example', GW_JWT_AUDIENCE: 'gw' });
    expect(settings).toMatchObject({ GW_JWT_JWKS_URL: 'https://idp.example/.well-known/jwks.json', GW_JWT_ISSUER: 'https://idp.example', GW_JWT_AUDIENCE: 'gw' });
  });

  it('refuse a JWKS URL that is not a URL, naming it', () => {
    expect(() => parseSettings({ GW_JWT_JWKS_URL: 'jwks.json' })).toThrow(/GW_JWT_JWKS_URL/);
  });

  it('refuse a shared secret under 32 characters without showing it', async () => {
    vi.stubEnv('GW_JWT_SECRET', 'short-secret-value');
    // A fresh module graph, so settings are parsed from the stubbed environment.
    const { jwtOptionsFromSettings } = await import('../../../shared/auth/jwt.js');
    let error: unknown;
    try {
      jwtOptionsFromSettings();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe(InvalidSettingsError.name);
    expect((error as Error).message).toContain('GW_JWT_SECRET');
    expect((error as Error).message).not.toContain('short-secret-value');
  });
});
