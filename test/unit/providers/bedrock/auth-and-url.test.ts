import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../shared/providers/bedrock/adapter.js';
import { AWS, bedrockInput, expectBuildError } from './helpers.js';

const chat = { model: 'anthropic.claude-3-haiku-20240307-v1:0', messages: [{ role: 'user', content: 'Hi' }] };

describe('Bedrock credentials', () => {
  it('refuses a request without AWS credentials, naming the access-key header', async () => {
    await expectBuildError(bedrockInput(chat, { target: { aws: { region: 'us-east-1' } } }), {
      code: 'missing_aws_credentials',
      param: 'x-gw-aws-access-key-id',
      message: 'send x-gw-aws-access-key-id, x-gw-aws-secret-access-key and x-gw-aws-region',
    });
  });

  it('refuses an access key without its secret, naming the secret header', async () => {
    await expectBuildError(bedrockInput(chat, { target: { aws: { accessKeyId: 'AKIDEXAMPLE', region: 'us-east-1' } } }), {
      code: 'missing_aws_credentials',
      param: 'x-gw-aws-secret-access-key',
      message: 'x-gw-aws-secret-access-key is required',
    });
  });

  it('refuses credentials without a region, naming the region header', async () => {
    await expectBuildError(bedrockInput(chat, { target: { aws: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } } }), {
      code: 'missing_aws_region',
      param: 'x-gw-aws-region',
      message: 'send x-gw-aws-region',
    });
  });

  it('refuses a region that is not a region name (it becomes part of the hostname)', async () => {
    await expectBuildError(bedrockInput(chat, { target: { aws: { ...AWS, region: 'us-east-1.evil.example#' } } }), {
      code: 'invalid_aws_region',
      param: 'x-gw-aws-region',
      message: 'AWS region name such as us-east-1',
    });
  });

  it('sends a Bedrock API key as a bearer token when no access key is given', async () => {
    const call = await bedrockAdapter.buildCall(bedrockInput(chat, { target: { aws: { region: 'eu-central-1' }, apiKey: 'bedrock-api-key-123' } }));
    expect(call.headers.authorization).toBe('Bearer bedrock-api-key-123');
    expect(call.headers['x-amz-date']).toBeUndefined();
    expect(call.url).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse');
  });

  it('never puts the secret key into the call it builds', async () => {
    const call = await bedrockAdapter.buildCall(bedrockInput(chat));
    expect(JSON.stringify(call)).not.toContain(AWS.secretAccessKey);
  });
});

describe('Bedrock URLs', () => {
  it('picks converse, converse-stream and invoke by endpoint and stream flag', async () => {
    const base = 'https://bedrock-runtime.us-west-2.amazonaws.com/model';
    expect((await bedrockAdapter.buildCall(bedrockInput(chat))).url).toBe(`${base}/anthropic.claude-3-haiku-20240307-v1%3A0/converse`);
    const streamed = await bedrockAdapter.buildCall(bedrockInput({ ...chat, stream: true }, { stream: true }));
    expect(streamed.url).toBe(`${base}/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream`);
    expect(streamed.headers.accept).toBe('application/vnd.amazon.eventstream');
    const embeddings = await bedrockAdapter.buildCall(bedrockInput({ model: 'amazon.titan-embed-text-v2:0', input: 'hello' }, { endpoint: 'embeddings' }));
    expect(embeddings.url).toBe(`${base}/amazon.titan-embed-text-v2%3A0/invoke`);
  });

  it('encodes an inference-profile ARN as one path segment', async () => {
    const arn = 'arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/abc123';
    const call = await bedrockAdapter.buildCall(bedrockInput({ ...chat, model: arn }));
    expect(call.url).toBe(`https://bedrock-runtime.us-west-2.amazonaws.com/model/${encodeURIComponent(arn)}/converse`);
    expect(new URL(call.url).pathname.split('/')).toHaveLength(4);
  });

  it('replaces scheme and host with the custom host and signs for that host', async () => {
    const call = await bedrockAdapter.buildCall(bedrockInput(chat, { target: { customHost: 'http://127.0.0.1:4010/proxy' } }));
    expect(call.url).toBe('http://127.0.0.1:4010/proxy/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse');
    expect(call.headers.host).toBe('127.0.0.1:4010');
  });

  it('uses the amazonaws.com.cn domain for China regions', async () => {
    const call = await bedrockAdapter.buildCall(bedrockInput(chat, { target: { aws: { ...AWS, region: 'cn-north-1' } } }));
    expect(new URL(call.url).host).toBe('bedrock-runtime.cn-north-1.amazonaws.com.cn');
  });
});
