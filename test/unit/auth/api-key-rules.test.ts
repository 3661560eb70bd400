import { describe, expect, it } from 'vitest';
import { nextRotation, resolveExpiry } from '../../../shared/control-plane/api-keys/rules.js';
import { GatewayError } from '../../../shared/http/errors.js';
import type { WorkspaceRecord } from '../../../shared/store/workspace-repository.js';

const now = new Date('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;
const workspace = (overrides: Partial<WorkspaceRecord>): WorkspaceRecord => ({ id: 'w', organisation_id: 'o', name: 'w', slug: 'w', created_at: '2026-01-01T00:00:00Z', ...overrides });

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof GatewayError ? error.code : 'not a GatewayError';
  }
}

describe('resolveExpiry', () => {
  it('uses the default, else the maximum, else none when no expiry is asked for', () => {
    expect(resolveExpiry(undefined, workspace({ api_key_default_expiry_days: 7, api_key_max_expiry_days: 30 }), now)).toBe(new Date(now.getTime() + 7 * DAY).toISOString());
    expect(resolveExpiry(undefined, workspace({ api_key_max_expiry_days: 30 }), now)).toBe(new Date(now.getTime() + 30 * DAY).toISOString());
    expect(resolveExpiry(undefined, workspace({}), now)).toBeUndefined();
    expect(resolveExpiry(undefined, undefined, now)).toBeUndefined();
  });

  it('allows "never" only without a maximum, and a time only in the future and within the maximum', () => {
    expect(resolveExpiry(null, workspace({}), now)).toBeUndefined();
    expect(codeOf(() => resolveExpiry(null, workspace({ api_key_max_expiry_days: 30 }), now))).toBe('expiry_required');
    expect(codeOf(() => resolveExpiry('2026-03-10T12:00:00Z', workspace({}), now))).toBe('invalid_expiry');
    expect(codeOf(() => resolveExpiry('2026-04-10T12:00:01Z', workspace({ api_key_max_expiry_days: 31 }), now))).toBe('expiry_too_late');
    expect(resolveExpiry('2026-04-10T12:00:00+00:00', workspace({ api_key_max_expiry_days: 31 }), now)).toBe('2026-04-10T12:00:00.000Z');
  });
});

describe('nextRotation', () => {
  it('counts a week, a calendar month or custom days from the given time', () => {
    expect(nextRotation({ period: 'weekly' }, now)).toBe('2026-03-17T12:00:00.000Z');
    expect(nextRotation({ period: 'monthly' }, now)).toBe('2026-04-10T12:00:00.000Z');
    expect(nextRotation({ period: 'custom', interval_days: 45 }, now)).toBe('2026-04-24T12:00:00.000Z');
  });
});
