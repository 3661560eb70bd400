import { describe, expect, it } from 'vitest';
import { InvalidSettingsError, parseSettings } from '../../../shared/settings.js';

describe('enforcement and pricing settings', () => {
  it('default to a 5 s policy cache, no reservation, 5-minute local schedules and no extra pricing source', () => {
    const parsed = parseSettings({});
    expect(parsed).toMatchObject({
      GW_POLICY_CACHE_TTL_MS: 5_000,
      GW_TOKEN_LIMIT_RESERVATION: false,
      GW_LOCAL_SCHEDULE_INTERVAL_MS: 300_000,
      MODEL_CONFIGS_PROXY_FETCH_ENABLED: false,
      POLICY_ENABLED: true,
      USAGE_LIMITS_ENABLED: true,
    });
    expect(parsed.MODEL_CONFIGS_PROXY_URL).toBeUndefined();
    expect(parsed.MODEL_CONFIGS_PRICING_LOCAL_PATH).toBeUndefined();
    expect(parsed.MODEL_CONFIGS_PRICING_LOG_STORE_PATH).toBeUndefined();
  });

  it('read ON / OFF switches in any case', () => {
    expect(parseSettings({ GW_TOKEN_LIMIT_RESERVATION: 'on', MODEL_CONFIGS_PROXY_FETCH_ENABLED: 'ON', MODEL_CONFIGS_PROXY_URL: 'https://configs.example.com', POLICY_ENABLED: 'off', USAGE_LIMITS_ENABLED: 'Off' })).toMatchObject({
      GW_TOKEN_LIMIT_RESERVATION: true,
      MODEL_CONFIGS_PROXY_FETCH_ENABLED: true,
      POLICY_ENABLED: false,
      USAGE_LIMITS_ENABLED: false,
    });
  });

  it.each([
    ['GW_POLICY_CACHE_TTL_MS', '300001', 'Too big'],
    ['GW_POLICY_CACHE_TTL_MS', '-1', 'Too small'],
    ['GW_POLICY_CACHE_TTL_MS', 'soon', 'expected number'],
    ['GW_LOCAL_SCHEDULE_INTERVAL_MS', '1.5', 'expected int'],
    ['MODEL_CONFIGS_PROXY_URL', 'not a url', 'Invalid URL'],
    ['MODEL_CONFIGS_PRICING_LOCAL_PATH', '', 'Too small'],
  ])('refuse %s=%j, naming the variable and the value', (name, value, problem) => {
    let thrown: unknown;
    try {
      parseSettings({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidSettingsError);
    expect((thrown as InvalidSettingsError).issues).toEqual([expect.stringContaining(`${name}: `)]);
    expect((thrown as InvalidSettingsError).issues[0]).toContain(problem);
    expect((thrown as InvalidSettingsError).issues[0]).toContain(`(got ${JSON.stringify(value)})`);
  });

  it('refuse a switched-on proxy without its URL', () => {
    expect(() => parseSettings({ MODEL_CONFIGS_PROXY_FETCH_ENABLED: 'ON' })).toThrow('MODEL_CONFIGS_PROXY_URL: is required when MODEL_CONFIGS_PROXY_FETCH_ENABLED is ON (got undefined)');
  });
});
