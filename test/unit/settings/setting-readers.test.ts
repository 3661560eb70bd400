import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../../shared/settings.js';
import { settingIssues as issues } from '../../support/settings-refusal.js';

// The settings readers (shared/settings-fields.ts) replaced a schema library at every cold start: these pin the
// values each kind of setting takes and refuses, and how refusals are reported.
describe('setting readers', () => {
  it('an unset setting takes its default; a set one its value, numbers read as numbers', () => {
    const parsed = parseSettings({ GW_MAX_BODY_BYTES: ' 2048 ', GW_IMAGE_FETCH_MAX_REDIRECTS: '0', GW_CACHE_MAX_STALE_MS: '1e3', GW_SECRET_STORE: 'local-file' });
    expect(parsed).toMatchObject({ GW_MAX_BODY_BYTES: 2048, GW_IMAGE_FETCH_MAX_REDIRECTS: 0, GW_CACHE_MAX_STALE_MS: 1000, GW_SECRET_STORE: 'local-file', GW_TABLE_MAIN: 'gw-main' });
    expect(parsed.DB_SSL).toBeUndefined();
  });

  it('bounds: below, above, not whole, not a number; an empty number is 0 and refused where 0 is', () => {
    expect(issues({ GW_IMAGE_FETCH_MAX_REDIRECTS: '11' })).toEqual(['GW_IMAGE_FETCH_MAX_REDIRECTS: Too big: expected number to be <=10 (got "11")']);
    expect(issues({ GW_MAX_BODY_BYTES: '0' })[0]).toContain('Too small');
    expect(issues({ GW_MAX_BODY_BYTES: '' })[0]).toContain('Too small');
    expect(issues({ GW_MAX_BODY_BYTES: '1.5' })[0]).toContain('expected int');
    expect(issues({ GW_MAX_BODY_BYTES: '10MB' })[0]).toContain('expected number');
  });

  it('choices: exact values for a choice, any case and blanks for DB_SSL, empty DB_SSL as unset', () => {
    expect(issues({ GW_SECRET_STORE: 'Local-File' })[0]).toContain('GW_SECRET_STORE: Invalid option: expected one of "secrets-manager"|"local-file"');
    expect(parseSettings({ DB_SSL: ' verify_ca ' }).DB_SSL).toBe('VERIFY_CA');
    expect(parseSettings({ DB_SSL: '  ' }).DB_SSL).toBeUndefined();
    expect(issues({ DB_SSL: 'ALWAYS' })[0]).toContain('DB_SSL: Invalid option');
  });

  it('text: too short, not matching its pattern, not a URL', () => {
    expect(issues({ GW_TABLE_MAIN: 'ab' })[0]).toContain('GW_TABLE_MAIN: Too small: expected string to have >=3 characters');
    expect(issues({ GW_SECRET_NAME_PREFIX: '' })[0]).toContain('GW_SECRET_NAME_PREFIX: Invalid string');
    expect(issues({ GW_SECRET_NAME_PREFIX: 'gw/prod' })[0]).toContain('GW_SECRET_NAME_PREFIX: Invalid string');
    expect(issues({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })[0]).toContain('OTEL_EXPORTER_OTLP_ENDPOINT: Invalid URL');
    expect(parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://collector:4318');
  });

  it('names every invalid variable at once, in order; a check across settings waits until each is valid', () => {
    expect(issues({ GW_TABLE_LOGS: 'x', GW_POLICY_CACHE_TTL_MS: '-1', MODEL_CONFIGS_PROXY_FETCH_ENABLED: 'ON' }).map((issue) => issue.split(':')[0])).toEqual(['GW_TABLE_LOGS', 'GW_POLICY_CACHE_TTL_MS']);
    expect(issues({ MODEL_CONFIGS_PROXY_FETCH_ENABLED: 'ON' })).toEqual(['MODEL_CONFIGS_PROXY_URL: is required when MODEL_CONFIGS_PROXY_FETCH_ENABLED is ON (got undefined)']);
  });
});
