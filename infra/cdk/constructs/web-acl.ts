import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface GwWebAclProps {
  /** Requests one client address may send per 5-minute window before it is answered 429. */
  ratePerFiveMinutes: number;
}

/**
 * An optional AWS WAF web ACL in front of the API (context `waf: true`): a rate-based rule per client IP that
 * answers in gw's error shape with 429, so a flood from one address (unauthenticated ones included) is stopped
 * before it reaches a Lambda or writes an audit item. Everything else is allowed: request bodies of LLM calls are
 * large, so WAF's managed body-size rules would block legitimate traffic.
 */
export class GwWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: GwWebAclProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('gw-web-acl'),
      customResponseBodies: {
        rateLimited: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: { message: 'Too many requests from this address', type: 'rate_limit_error', code: 'rate_limited', param: null },
            status: 'failure',
          }),
        },
      },
      rules: [
        {
          name: 'rate-per-client-ip',
          priority: 0,
          statement: { rateBasedStatement: { limit: props.ratePerFiveMinutes, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rateLimited' } } },
          visibilityConfig: visibility('gw-rate-per-client-ip'),
        },
      ],
    });
  }
}
