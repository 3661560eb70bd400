import type { MockHandler, RecordedRequest, ScriptedResponse } from './mock-upstream.js';

/**
 * A stand-in for AWS STS's AssumeRole on the wire: the Query protocol (a form-encoded POST naming Action=AssumeRole)
 * answered with the XML `AssumeRoleResponse`, or STS's XML `ErrorResponse`. Serve it with startMockUpstream and point
 * GW_STS_ENDPOINT at it. `answer` decides per call: credentials (with their expiry) or a refusal.
 */
export interface AssumeRoleCall {
  action: string | null;
  roleArn: string | null;
  roleSessionName: string | null;
  externalId: string | null;
  durationSeconds: string | null;
}

export type AssumeRoleAnswer =
  | { credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string }; expiresAt: Date }
  | { refuse: { status: number; code: string; message: string } };

export function assumeRoleCallOf(request: RecordedRequest): AssumeRoleCall {
  const form = new URLSearchParams(request.body);
  return {
    action: form.get('Action'),
    roleArn: form.get('RoleArn'),
    roleSessionName: form.get('RoleSessionName'),
    externalId: form.get('ExternalId'),
    durationSeconds: form.get('DurationSeconds'),
  };
}

const NAMESPACE = 'https://sts.amazonaws.com/doc/2011-06-15/';
const xml = (status: number, body: string): ScriptedResponse => ({ status, headers: { 'content-type': 'text/xml' }, chunks: [`<?xml version="1.0" encoding="UTF-8"?>\n${body}`] });

export function stsHandler(answer: (call: AssumeRoleCall) => AssumeRoleAnswer): MockHandler {
  return (request) => {
    const call = assumeRoleCallOf(request);
    if (request.method !== 'POST' || call.action !== 'AssumeRole') {
      return xml(400, `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>Only AssumeRole is served here</Message></Error><RequestId>stand-in</RequestId></ErrorResponse>`);
    }
    const decided = answer(call);
    if ('refuse' in decided) {
      const { status, code, message } = decided.refuse;
      return xml(status, `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>stand-in</RequestId></ErrorResponse>`);
    }
    const { credentials, expiresAt } = decided;
    return xml(
      200,
      `<AssumeRoleResponse xmlns="${NAMESPACE}"><AssumeRoleResult>` +
        `<Credentials><AccessKeyId>${credentials.accessKeyId}</AccessKeyId><SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey>` +
        `<SessionToken>${credentials.sessionToken}</SessionToken><Expiration>${expiresAt.toISOString()}</Expiration></Credentials>` +
        `<AssumedRoleUser><AssumedRoleId>AROASTANDIN:${call.roleSessionName}</AssumedRoleId><Arn>${call.roleArn}/${call.roleSessionName}</Arn></AssumedRoleUser>` +
        `</AssumeRoleResult><ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    );
  };
}
