import { describe, expect, it } from 'vitest';
import { InvalidContextError, readConfig } from '../../infra/cdk/config.js';
import { cdkJsonContext } from './support/synth.js';

const fromContext = (context: Record<string, unknown>) => () => readConfig((key) => context[key]);

function issuesOf(context: Record<string, unknown>): string[] {
  try {
    fromContext(context)();
  } catch (error) {
    if (error instanceof InvalidContextError) return error.issues;
    throw error;
  }
  throw new Error('expected the context to be refused');
}

describe('reading the stack configuration from CDK context', () => {
  it('reads cdk.json as the documented defaults', () => {
    expect(fromContext(cdkJsonContext())()).toMatchObject({
      stackName: 'gw',
      environment: 'production',
      apiStageName: 'prod',
      throttleRateLimit: 100,
      throttleBurstLimit: 200,
      apiExecutionLogging: 'ERROR',
      logRetentionDays: 30,
      logLevel: 'INFO',
      metricsNamespace: 'gw',
      reservedConcurrency: {},
      memoryMb: {},
      settings: {},
      nag: true,
    });
  });

  it('turns off CDK CLI telemetry, notices and version reporting in cdk.json', async () => {
    const { readFileSync } = await import('node:fs');
    const cdkJson = JSON.parse(readFileSync('cdk.json', 'utf8')) as Record<string, unknown> & { context: Record<string, unknown> };
    expect(cdkJson.context['cli-telemetry']).toBe(false);
    expect(cdkJson.notices).toBe(false);
    expect(cdkJson.versionReporting).toBe(false);
    expect(cdkJson.app).toBe('node --import tsx infra/cdk/app.ts');
  });

  it('parses numbers, booleans and JSON given as strings with -c', () => {
    const config = fromContext({ throttleRateLimit: '50', throttleBurstLimit: '80', nag: 'false', reservedConcurrency: '{"gateway":10}', logRetentionDays: '90' })();
    expect(config).toMatchObject({ throttleRateLimit: 50, throttleBurstLimit: 80, nag: false, reservedConcurrency: { gateway: 10 }, logRetentionDays: 90 });
  });

  it('refuses values CloudFormation or CloudWatch would refuse, naming the key', () => {
    expect(issuesOf({ logRetentionDays: 45 })).toEqual([expect.stringMatching(/^logRetentionDays: must be one of 1, 3, 5/)]);
    expect(issuesOf({ environment: 'staging' })).toEqual([expect.stringMatching(/^environment: /)]);
    expect(issuesOf({ throttleRateLimit: -1 })).toEqual([expect.stringMatching(/^throttleRateLimit: /)]);
    expect(issuesOf({ throttleRateLimit: 300, throttleBurstLimit: 100 })).toEqual(['throttleBurstLimit: must be at least throttleRateLimit']);
    expect(issuesOf({ memoryMb: { gateway: 64 } })).toEqual([expect.stringMatching(/^memoryMb\.gateway: /)]);
    expect(issuesOf({ reservedConcurrency: { 'no-such-function': 1 } })).toEqual([expect.stringMatching(/^reservedConcurrency/)]);
    expect(issuesOf({ stackName: '1gw' })).toEqual([expect.stringMatching(/^stackName: /)]);
  });

  it('refuses ARNs of the wrong service', () => {
    expect(issuesOf({ webAclArn: 'arn:aws:sns:eu-west-1:1:topic' })).toEqual(['webAclArn: must be an wafv2 ARN']);
    expect(issuesOf({ alarmTopicArn: 'topic-name' })).toEqual(['alarmTopicArn: must be an sns ARN']);
    expect(issuesOf({ secretsKmsKey: 'yes' })).toEqual([expect.stringMatching(/^secretsKmsKey: /)]);
  });

  it('requires a certificate with a custom domain, and a domain with a hosted zone', () => {
    expect(issuesOf({ domainName: 'ai.example.com' })).toEqual([expect.stringMatching(/^certificateArn: is required when domainName is set/)]);
    expect(issuesOf({ domainName: 'ai.example.com', certificateArn: 'arn:aws:acm:eu-west-1:1:certificate/x', hostedZoneId: 'Z1' })).toEqual([
      'hostedZoneId: hostedZoneId and hostedZoneName go together',
    ]);
    expect(issuesOf({ hostedZoneId: 'Z1', hostedZoneName: 'example.com' })).toEqual(['domainName: is required when a hosted zone is given']);
  });

  it('validates gw settings with the functions own schema: unknown names, stack-owned names and bad values', () => {
    expect(issuesOf({ settings: { GUARDRAILS_ENABLE: 'OFF' } })).toEqual(['settings.GUARDRAILS_ENABLE: not a gw setting (see shared/settings.ts)']);
    expect(issuesOf({ settings: { GW_TABLE_MAIN: 'other' } })).toEqual(['settings.GW_TABLE_MAIN: is set by the stack and cannot be overridden']);
    // The secret prefix and the blob bucket are the stack's: another prefix would leave the role's grant behind.
    // So are the request-log streams, workgroup, database and buckets: the roles are granted exactly those names.
    for (const name of ['GW_SECRET_NAME_PREFIX', 'GW_BLOB_BUCKET', 'GW_LOG_STREAM_REQUESTS', 'GW_ATHENA_WORKGROUP', 'GW_ATHENA_DATABASE', 'GW_LOG_RESULTS_BUCKET']) {
      expect(issuesOf({ settings: { [name]: 'other-stack' } })).toEqual([`settings.${name}: is set by the stack and cannot be overridden`]);
    }
    // The tests' AWS-operation recorder is not a setting at all.
    expect(issuesOf({ settings: { GW_RECORD_AWS_OPERATIONS_DIR: '/tmp/x' } })).toEqual(['settings.GW_RECORD_AWS_OPERATIONS_DIR: not a gw setting (see shared/settings.ts)']);
    const secret = 'a'.repeat(40);
    const secretIssues = issuesOf({ settings: { GW_JWT_SECRET: secret } });
    expect(secretIssues).toEqual(['settings.GW_JWT_SECRET: is a secret and would be stored in plain text in the template; use GW_JWT_JWKS_URL']);
    expect(secretIssues.join('')).not.toContain(secret);
    expect(issuesOf({ settings: { GW_AUTH_CACHE_TTL_MS: 'soon' } })).toEqual([expect.stringMatching(/^settings\.GW_AUTH_CACHE_TTL_MS: .*\(got "soon"\)$/)]);
    // Athena's scan limit has a floor of 10 MB, the projection a date.
    expect(issuesOf({ logQueryScanLimitMb: 5 })).toEqual([expect.stringMatching(/^logQueryScanLimitMb: /)]);
    expect(issuesOf({ requestLogsStartDate: 'last year' })).toEqual(['requestLogsStartDate: must be YYYY-MM-DD']);
    expect(fromContext({ settings: { GW_LOG_QUERY_TIMEOUT_MS: '20000' } })().settings).toEqual({ GW_LOG_QUERY_TIMEOUT_MS: '20000' });
    // Optional settings without a default are known too.
    expect(fromContext({ settings: { GW_JWT_ISSUER: 'https://issuer.example.com' } })().settings).toEqual({ GW_JWT_ISSUER: 'https://issuer.example.com' });
  });

  it('turns boolean settings into ON/OFF and numbers into strings', () => {
    expect(fromContext({ settings: '{"SCIM_ENABLED": false, "GW_REQUEST_LOGS": true, "LOG_RETENTION_DISPLAY": 30}' })().settings).toEqual({
      SCIM_ENABLED: 'OFF',
      GW_REQUEST_LOGS: 'ON',
      LOG_RETENTION_DISPLAY: '30',
    });
  });
});
