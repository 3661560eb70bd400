import { describe, expect, it } from 'vitest';
import { InvalidSettingsError, parseSettings } from '../../../shared/settings.js';

describe('settings', () => {
  it('applies defaults and reads feature flags as on unless OFF', () => {
    const settings = parseSettings({ POLICY_ENABLED: 'off', AUDIT_LOGS_ENABLED: 'On' });
    expect(settings.GW_TABLE_MAIN).toBe('gw-main');
    expect(settings.GW_MAX_BODY_BYTES).toBe(10 * 1024 * 1024);
    expect(settings.POLICY_ENABLED).toBe(false);
    expect(settings.AUDIT_LOGS_ENABLED).toBe(true);
    expect(settings.GW_ALLOW_LOOPBACK_HOSTS).toBe(false);
  });

  it('names every invalid variable', () => {
    let error: unknown;
    try {
      parseSettings({ GW_DEFAULT_REQUEST_TIMEOUT_MS: 'soon', GW_DYNAMODB_ENDPOINT: 'not a url' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSettingsError);
    const message = (error as Error).message;
    expect(message).toContain('GW_DEFAULT_REQUEST_TIMEOUT_MS');
    expect(message).toContain('GW_DYNAMODB_ENDPOINT');
    expect(message).toContain('"soon"');
  });
});
