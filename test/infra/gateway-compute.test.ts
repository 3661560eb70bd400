import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidContextError } from '../../infra/cdk/config.js';
import type { GwStack } from '../../infra/cdk/gw-stack.js';
import { synthGwStack } from './support/synth.js';
import { functionLogicalId, functionProperties } from './support/template-queries.js';

/** Issue #44: the `gatewayCompute` context key puts the gateway on Lambda Managed Instances, or leaves it classic. */
describe('gatewayCompute=managed-instances', () => {
  let stack: GwStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = synthGwStack({
      context: { gatewayCompute: 'managed-instances', managedInstanceTypes: '["m7g.large"]', managedConcurrencyPerEnvironment: '96', managedMinEnvironments: '2', managedMaxEnvironments: '20' },
    }));
  });

  it('synthesises a capacity provider in private subnets with the gateway function on it', () => {
    template.resourceCountIs('AWS::Lambda::CapacityProvider', 1);
    template.hasResourceProperties('AWS::Lambda::CapacityProvider', {
      InstanceRequirements: { Architectures: ['arm64'], AllowedInstanceTypes: ['m7g.large'] },
      VpcConfig: { SubnetIds: Match.anyValue(), SecurityGroupIds: Match.anyValue() },
    });
    const gateway = functionProperties(template, 'gateway') as Record<string, unknown>;
    const providerId = stack.getLogicalId(stack.managedCompute!.capacityProvider.node.defaultChild as never);
    expect(gateway.CapacityProviderConfig).toEqual({
      LambdaManagedInstancesCapacityProviderConfig: {
        CapacityProviderArn: { 'Fn::GetAtt': [providerId, 'Arn'] },
        PerExecutionEnvironmentMaxConcurrency: 96,
        ExecutionEnvironmentMemoryGiBPerVCpu: 2,
      },
    });
    expect(gateway.FunctionScalingConfig).toEqual({ MinExecutionEnvironments: 2, MaxExecutionEnvironments: 20 });
    expect(gateway.PublishToLatestPublished).toBe(true);
    expect(gateway.MemorySize).toBeGreaterThanOrEqual(2048);
    expect((gateway.Environment as { Variables: Record<string, unknown> }).Variables.GW_CONCURRENT_INVOCATIONS).toBe('ON');
    // 96 per environment: the pool's own 256 connections per provider origin already cover them.
    expect((gateway.Environment as { Variables: Record<string, unknown> }).Variables.GW_UPSTREAM_MAX_SOCKETS_PER_ORIGIN).toBe('256');
    // Environments on instances keep running between invocations: their quota leases go back at idle.
    expect((gateway.Environment as { Variables: Record<string, unknown> }).Variables.GW_QUOTA_LEASES).toBeUndefined();
  });

  it('keeps the control plane and the scheduled functions classic', () => {
    const controlPlane = functionProperties(template, 'control-plane') as Record<string, unknown>;
    expect(controlPlane.CapacityProviderConfig).toBeUndefined();
    expect((controlPlane.Environment as { Variables: Record<string, unknown> }).Variables.GW_CONCURRENT_INVOCATIONS).toBeUndefined();
  });

  it('gives the instances a way out (NAT) and the store a free one (gateway endpoints), and no inbound rule', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    // NAT instances only when asked for (managedEgress=nat-instance, managed-egress.test.ts).
    template.resourceCountIs('AWS::EC2::Instance', 0);
    const endpoints = Object.values(template.findResources('AWS::EC2::VPCEndpoint')).map((endpoint) => JSON.stringify(endpoint.Properties.ServiceName));
    expect(endpoints.some((name) => name.includes('dynamodb'))).toBe(true);
    expect(endpoints.some((name) => name.includes('.s3'))).toBe(true);
    const groups = Object.values(template.findResources('AWS::EC2::SecurityGroup'));
    expect(groups).toHaveLength(1);
    expect(groups[0].Properties.SecurityGroupIngress).toBeUndefined();
  });

  it("drops Lambda's START/END/REPORT lines of the gateway by default: JSON format, system log level WARN (the class: a per-invocation cost no option controlled)", () => {
    expect((functionProperties(template, 'gateway').LoggingConfig as Record<string, unknown>)).toMatchObject({ LogFormat: 'JSON', SystemLogLevel: 'WARN', ApplicationLogLevel: 'INFO' });
    expect((functionProperties(template, 'control-plane').LoggingConfig as Record<string, unknown>).LogFormat).toBeUndefined();
  });

  it('the API still invokes the gateway function (unqualified: its $LATEST.PUBLISHED version)', () => {
    const gatewayId = functionLogicalId(template, 'gateway');
    expect(JSON.stringify(template.findResources('AWS::ApiGateway::Method'))).toContain(gatewayId);
  });
});

describe('gatewayCompute by default', () => {
  it('is classic Lambda: no capacity provider, no VPC, no NAT', () => {
    const { template } = synthGwStack();
    template.resourceCountIs('AWS::Lambda::CapacityProvider', 0);
    template.resourceCountIs('AWS::EC2::VPC', 0);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    // Lambda's REPORT lines (duration, memory) stay: classic Lambda is billed and sized by them.
    expect((functionProperties(template, 'gateway').LoggingConfig as Record<string, unknown>).LogFormat).toBeUndefined();
  });

  it('lease held by a frozen environment: the classic gateway admits without quota leases (a frozen environment keeps its shares counted until expiry + grace), unless the operator says otherwise', () => {
    const variables = (template: Template) => (functionProperties(template, 'gateway') as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
    expect(variables(synthGwStack().template).GW_QUOTA_LEASES).toBe('OFF');
    expect(variables(synthGwStack({ context: { settings: { GW_QUOTA_LEASES: 'ON' } } }).template).GW_QUOTA_LEASES).toBe('ON');
  });

  it('refuses an unknown compute and a maximum below the minimum, naming the key', () => {
    expect(() => synthGwStack({ context: { gatewayCompute: 'fargate' } })).toThrow(InvalidContextError);
    expect(() => synthGwStack({ context: { gatewayCompute: 'managed-instances', managedMinEnvironments: '5', managedMaxEnvironments: '2' } })).toThrow(/managedMaxEnvironments/);
  });
});
