import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../../shared/settings.js';
import { settingsRefusal as refusal } from '../../support/settings-refusal.js';

describe('strict setting values', () => {
  it('ON/OFF switches accept ON and OFF in any case, and empty as the default', () => {
    const parsed = parseSettings({ GW_ALLOW_LOOPBACK_HOSTS: ' on ', POLICY_ENABLED: 'Off', GW_REQUEST_LOGS: '' });
    expect(parsed.GW_ALLOW_LOOPBACK_HOSTS).toBe(true);
    expect(parsed.POLICY_ENABLED).toBe(false);
    expect(parsed.GW_REQUEST_LOGS).toBe(true);
  });

  it.each(['maybe', 'yes', 'true', '1', 'enabled'])('refuses %j for a switch, naming the variable and the allowed values', (value) => {
    const message = refusal({ GW_ALLOW_LOOPBACK_HOSTS: value });
    expect(message).toContain('GW_ALLOW_LOOPBACK_HOSTS: must be ON or OFF');
    expect(message).toContain(JSON.stringify(value));
  });

  it('refuses a feature flag that is neither ON nor OFF', () => {
    expect(refusal({ USAGE_LIMITS_ENABLED: 'disabled' })).toContain('USAGE_LIMITS_ENABLED: must be ON or OFF');
  });

  it('refuses a short or malformed GW_BOOTSTRAP_API_KEY without ever showing it', () => {
    for (const key of ['abc', 'gwk_has spaces_0123456789', 'x'.repeat(300)]) {
      const message = refusal({ GW_BOOTSTRAP_API_KEY: key });
      expect(message).toContain('GW_BOOTSTRAP_API_KEY: must be 16-256 characters');
      expect(message).toContain('(value not shown)');
      expect(message).not.toContain(key);
    }
  });

  it('accepts a well-formed GW_BOOTSTRAP_API_KEY, and an empty one (generate a key)', () => {
    expect(parseSettings({ GW_BOOTSTRAP_API_KEY: 'gwk_test_admin_key_0123456789abcdef' }).GW_BOOTSTRAP_API_KEY).toBe('gwk_test_admin_key_0123456789abcdef');
    expect(parseSettings({ GW_BOOTSTRAP_API_KEY: '' }).GW_BOOTSTRAP_API_KEY).toBe('');
  });

  it('reads the local reliability settings with their defaults', () => {
    const parsed = parseSettings({});
    expect(parsed.GW_LOCAL_TTL_SWEEP_INTERVAL_MS).toBe(60_000);
    expect(parsed.GW_LOCAL_LOG_RETENTION_HOURS).toBe(168);
    expect(parsed.GW_SHUTDOWN_DRAIN_TIMEOUT_MS).toBe(30_000);
    expect(refusal({ GW_LOCAL_LOG_RETENTION_HOURS: '0' })).toContain('GW_LOCAL_LOG_RETENTION_HOURS');
  });
});
