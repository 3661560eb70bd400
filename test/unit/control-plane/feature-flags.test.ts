import { beforeAll, describe, expect, it } from 'vitest';
import type * as FeatureFlags from '../../../shared/control-plane/feature-flags.js';
import type { ControlPlaneRequest } from '../../../shared/control-plane/handler-types.js';
import { GatewayError } from '../../../shared/http/errors.js';

// Settings are parsed once per process: the flags are set before the module reads them. `off` in any case is OFF.
let flags: typeof FeatureFlags;
beforeAll(async () => {
  process.env.AUDIT_LOGS_ENABLED = 'off';
  process.env.SCIM_ENABLED = ' Off ';
  delete process.env.POLICY_ENABLED;
  process.env.GUARDRAILS_ENABLED = 'on';
  flags = await import('../../../shared/control-plane/feature-flags.js');
});

describe('feature flags', () => {
  it('are on unless set to OFF', () => {
    expect(flags.isFeatureEnabled('POLICY_ENABLED')).toBe(true);
    expect(flags.isFeatureEnabled('GUARDRAILS_ENABLED')).toBe(true);
    expect(flags.isFeatureEnabled('AUDIT_LOGS_ENABLED')).toBe(false);
    expect(flags.isFeatureEnabled('SCIM_ENABLED')).toBe(false);
  });

  it('requireFeature throws the 404 feature_disabled naming the flag', () => {
    expect(() => flags.requireFeature('POLICY_ENABLED')).not.toThrow();
    let thrown: unknown;
    try {
      flags.requireFeature('AUDIT_LOGS_ENABLED');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ status: 404, code: 'feature_disabled', type: 'not_found_error', param: null });
    expect((thrown as Error).message).toBe('This feature is disabled on this deployment: set AUDIT_LOGS_ENABLED (currently OFF) to enable it');
  });

  it('gatedBy answers before the handler runs when the flag is OFF, and runs it otherwise', async () => {
    const calls: string[] = [];
    const handler = async () => {
      calls.push('ran');
      return { status: 200, headers: {}, body: 'ok' };
    };
    const request = {} as ControlPlaneRequest;
    await expect(flags.gatedBy('SCIM_ENABLED', handler)(request)).rejects.toMatchObject({ status: 404, code: 'feature_disabled' });
    expect(calls).toEqual([]);
    await expect(flags.gatedBy('POLICY_ENABLED', handler)(request)).resolves.toMatchObject({ status: 200 });
    expect(calls).toEqual(['ran']);
  });
});
