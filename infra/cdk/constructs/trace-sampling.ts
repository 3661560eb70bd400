import { Stack } from 'aws-cdk-lib';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';

/** Managed instances are chosen for volume: 1 % of requests traced (plus one a second) unless `xraySampleRate` says. */
export const MANAGED_XRAY_SAMPLE_RATE = 0.01;

export interface TraceSamplingProps {
  /** The API stage's X-Ray service name: `<REST API name>/<stage>`. */
  serviceName: string;
  /** Share of requests traced beyond the first each second. */
  fixedRate: number;
}

/**
 * An X-Ray sampling rule for gw's API stage only (X-Ray bills every trace recorded: AWS's default rule keeps the
 * first request each second and 5 % of the rest). API Gateway makes the sampling decision; the functions it invokes
 * follow it. Scoped by service name and type, so other services of the account keep their own rules.
 */
export class TraceSampling extends Construct {
  readonly rule: CfnSamplingRule;

  constructor(scope: Construct, id: string, props: TraceSamplingProps) {
    super(scope, id);
    this.rule = new CfnSamplingRule(this, 'Rule', {
      samplingRule: {
        ruleName: `${Stack.of(this).stackName}-api`.slice(0, 32),
        priority: 100,
        fixedRate: props.fixedRate,
        reservoirSize: 1,
        serviceName: props.serviceName,
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
  }
}
