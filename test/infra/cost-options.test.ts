import { describe, expect, it } from 'vitest';
import { InvalidContextError } from '../../infra/cdk/config.js';
import { synthGwStack } from './support/synth.js';
import { functionProperties, resources } from './support/template-queries.js';

/**
 * Issue #44, "≤ $5 per million": the per-request lines of gw's bill that the stack controls are stack options with
 * production defaults (docs/deploy.md, "Cost per million requests"): the stage's access log and X-Ray's sampling.
 */
const stageOf = (context: Record<string, unknown>) => {
  const { template } = synthGwStack({ context });
  const [stage] = Object.values(resources(template, 'AWS::ApiGateway::Stage'));
  return { template, stage: stage.Properties as { AccessLogSetting?: { Format: string }; TracingEnabled?: boolean } };
};

describe('apiAccessLog', () => {
  it('is lean by default: what an investigation starts from, without the fields that double a line (the class: a per-request cost no option controlled)', () => {
    const { stage } = stageOf({});
    const fields = Object.keys(JSON.parse(stage.AccessLogSetting!.Format) as Record<string, string>);
    expect(fields).toEqual(['requestId', 'time', 'ip', 'method', 'path', 'status', 'latency', 'errorType', 'waf']);
  });

  it('writes every field with full, and no access log with off', () => {
    const full = Object.keys(JSON.parse(stageOf({ apiAccessLog: 'full' }).stage.AccessLogSetting!.Format) as Record<string, string>);
    expect(full).toEqual(expect.arrayContaining(['userAgent', 'integrationLatency', 'xrayTraceId', 'extendedRequestId']));
    expect(stageOf({ apiAccessLog: 'off' }).stage.AccessLogSetting).toBeUndefined();
  });

  it('refuses another value, naming the key', () => {
    expect(() => synthGwStack({ context: { apiAccessLog: 'verbose' } })).toThrow(InvalidContextError);
    expect(() => synthGwStack({ context: { apiAccessLog: 'verbose' } })).toThrow(/apiAccessLog/);
  });
});

describe('xraySampleRate', () => {
  it("leaves classic Lambda on AWS's default rule (no rule of the stack)", () => {
    const { template, stage } = stageOf({});
    expect(stage.TracingEnabled).toBe(true);
    expect(Object.keys(resources(template, 'AWS::XRay::SamplingRule'))).toHaveLength(0);
  });

  it('samples 1 % of the API stage with managed instances, scoped to the stage only', () => {
    const { template } = stageOf({ gatewayCompute: 'managed-instances' });
    const [rule] = Object.values(resources(template, 'AWS::XRay::SamplingRule'));
    expect(rule.Properties!.SamplingRule).toMatchObject({ FixedRate: 0.01, ReservoirSize: 1, ServiceName: 'gw/prod', ServiceType: 'AWS::ApiGateway::Stage' });
  });

  it('takes a rate of its own, and 0 turns tracing of the stage and the gateway off', () => {
    const [rule] = Object.values(resources(stageOf({ xraySampleRate: '0.2' }).template, 'AWS::XRay::SamplingRule'));
    expect(rule.Properties!.SamplingRule).toMatchObject({ FixedRate: 0.2 });
    const off = stageOf({ gatewayCompute: 'managed-instances', xraySampleRate: '0' });
    expect(off.stage.TracingEnabled).toBe(false);
    expect(Object.keys(resources(off.template, 'AWS::XRay::SamplingRule'))).toHaveLength(0);
    expect(functionProperties(off.template, 'gateway').TracingConfig).toEqual({ Mode: 'PassThrough' });
    expect(functionProperties(off.template, 'control-plane').TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('refuses a rate outside 0–1, naming the key', () => {
    expect(() => synthGwStack({ context: { xraySampleRate: '5' } })).toThrow(/xraySampleRate/);
  });
});
