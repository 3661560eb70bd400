import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidContextError, readConfig } from '../../infra/cdk/config.js';
import { synthGwStack } from './support/synth.js';
import { functionProperties, resources } from './support/template-queries.js';

/**
 * Issue #44, "≤ $5 per million": two lines of the managed-instances bill that only the stack could move: the NAT
 * gateway's per-GB processing (`managedEgress=nat-instance`) and Lambda's own per-invocation log lines
 * (`lambdaSystemLogLevel`). The defaults of each compute are asserted in gateway-compute.test.ts.
 */
type Json = Record<string, unknown>;
const ref = (value: unknown) => (value as { Ref?: string } | undefined)?.Ref;

describe('managedEgress=nat-instance', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synthGwStack({ context: { gatewayCompute: 'managed-instances', managedEgress: 'nat-instance', natGateways: '2', managedConcurrencyPerEnvironment: '512' } }));
  });

  it('lets the gateway open as many connections to one provider as the invocations an environment serves (the class: a pool cap that queued half of 512 requests in flight)', () => {
    const variables = (functionProperties(template, 'gateway').Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.GW_UPSTREAM_MAX_SOCKETS_PER_ORIGIN).toBe('512');
  });

  it('gives the VPC NAT instances instead of NAT gateways (the class: a per-GB charge no option removed)', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    const instances = Object.values(resources(template, 'AWS::EC2::Instance')).map((instance) => instance.Properties as Json);
    expect(instances).toHaveLength(2);
    for (const instance of instances) {
      expect(instance.InstanceType).toBe('t4g.nano');
      // A NAT forwards packets that are not its own: the source/destination check must be off.
      expect(instance.SourceDestCheck).toBe(false);
    }
    // Amazon Linux 2023 for arm64, resolved at deploy time from AWS's public parameter (no lookup at synth).
    const parameters = (template.toJSON() as { Parameters?: Record<string, { Default?: string }> }).Parameters ?? {};
    expect(Object.values(parameters).some((parameter) => /al2023-ami-kernel-.*arm64/.test(parameter.Default ?? ''))).toBe(true);
  });

  it('routes every private subnet to a NAT instance, and only the public ones to the internet gateway', () => {
    const instanceIds = new Set(Object.keys(resources(template, 'AWS::EC2::Instance')));
    const routes = Object.values(resources(template, 'AWS::EC2::Route')).map((route) => route.Properties as Json);
    const viaInstance = routes.filter((route) => route.InstanceId !== undefined);
    const privateSubnets = Object.values(resources(template, 'AWS::EC2::Subnet')).filter((subnet) => (subnet.Properties as Json).MapPublicIpOnLaunch === false);
    expect(privateSubnets.length).toBeGreaterThan(0);
    expect(viaInstance).toHaveLength(privateSubnets.length);
    for (const route of viaInstance) {
      expect(route.DestinationCidrBlock).toBe('0.0.0.0/0');
      expect(instanceIds.has(ref(route.InstanceId)!)).toBe(true);
    }
    expect(routes.some((route) => route.NatGatewayId !== undefined)).toBe(false);
  });

  it("lets only the instances' private subnets in, on the ports they leave by, and out on those ports only", () => {
    const subnetCidrs = Object.values(resources(template, 'AWS::EC2::Subnet'))
      .map((subnet) => subnet.Properties as Json)
      .filter((subnet) => subnet.MapPublicIpOnLaunch === false)
      .map((subnet) => subnet.CidrBlock);
    const natGroup = Object.values(resources(template, 'AWS::EC2::SecurityGroup'))
      .map((group) => group.Properties as Json)
      .find((group) => group.GroupDescription === 'Security Group for NAT instances')!;
    const ingress = natGroup.SecurityGroupIngress as Json[];
    expect(ingress.map((rule) => `${String(rule.CidrIp)}:${String(rule.FromPort)}`).sort()).toEqual(subnetCidrs.flatMap((cidr) => [`${String(cidr)}:443`, `${String(cidr)}:80`]).sort());
    expect(ingress.every((rule) => rule.IpProtocol === 'tcp' && rule.FromPort === rule.ToPort)).toBe(true);
    const egress = natGroup.SecurityGroupEgress as Json[];
    expect(egress.map((rule) => `${String(rule.CidrIp)}:${String(rule.IpProtocol)}:${String(rule.FromPort)}`).sort()).toEqual(['0.0.0.0/0:tcp:443', '0.0.0.0/0:tcp:80']);
  });

  it('requires IMDSv2 on the NAT instances', () => {
    const templates = Object.values(resources(template, 'AWS::EC2::LaunchTemplate')).map((launch) => launch.Properties as { LaunchTemplateData: { MetadataOptions?: Json } });
    expect(templates).toHaveLength(2);
    for (const launch of templates) expect(launch.LaunchTemplateData.MetadataOptions).toEqual({ HttpTokens: 'required' });
  });

  it('takes another instance type', () => {
    const { template: micro } = synthGwStack({ context: { gatewayCompute: 'managed-instances', managedEgress: 'nat-instance', natInstanceType: 't4g.micro' } });
    const instances = Object.values(resources(micro, 'AWS::EC2::Instance')).map((instance) => (instance.Properties as Json).InstanceType);
    expect(instances).toEqual(['t4g.micro']);
  });
});

describe('lambdaSystemLogLevel', () => {
  it("WARN on classic Lambda: JSON format without Lambda's per-invocation lines, gw's own lines still let through", () => {
    const { template } = synthGwStack({ context: { lambdaSystemLogLevel: 'WARN', logLevel: 'DEBUG' } });
    expect(functionProperties(template, 'gateway').LoggingConfig).toEqual({ LogFormat: 'JSON', SystemLogLevel: 'WARN', ApplicationLogLevel: 'DEBUG', LogGroup: expect.anything() });
    // The other functions are not the per-request line: they keep Lambda's defaults.
    expect((functionProperties(template, 'control-plane').LoggingConfig as Json).LogFormat).toBeUndefined();
  });

  it('INFO on managed instances keeps START/END/REPORT (plain text, as before)', () => {
    const { template } = synthGwStack({ context: { gatewayCompute: 'managed-instances', lambdaSystemLogLevel: 'INFO' } });
    expect((functionProperties(template, 'gateway').LoggingConfig as Json).LogFormat).toBeUndefined();
  });
});

describe('context validation', () => {
  const config = (context: Record<string, unknown>) => readConfig((key) => context[key]);

  it('refuses an unknown egress or log level, naming the key', () => {
    expect(() => config({ managedEgress: 'nat' })).toThrow(InvalidContextError);
    expect(() => config({ managedEgress: 'nat' })).toThrow(/managedEgress/);
    expect(() => config({ lambdaSystemLogLevel: 'DEBUG' })).toThrow(/lambdaSystemLogLevel/);
    expect(() => config({ natInstanceType: 'nano' })).toThrow(/natInstanceType/);
  });

  it("accepts AWS's documented range of concurrency per environment (1–1600), no more", () => {
    expect(config({ managedConcurrencyPerEnvironment: '1600' }).managedConcurrencyPerEnvironment).toBe(1600);
    expect(() => config({ managedConcurrencyPerEnvironment: '1601' })).toThrow(/managedConcurrencyPerEnvironment/);
  });
});
