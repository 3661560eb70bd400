import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../shared/providers/bedrock/adapter.js';

describe('Bedrock error bodies → gw error summary', () => {
  it.each([
    [400, { message: 'Malformed input request: #: required key [messages] not found, please reformat your input and try again.' }, 'ValidationException', 'invalid_request_error'],
    [403, { message: 'You don\'t have access to the model with the specified model ID.' }, 'AccessDeniedException', 'authentication_error'],
    [403, { message: 'The request signature we calculated does not match the signature you provided.' }, 'InvalidSignatureException', 'authentication_error'],
    [403, { message: 'The security token included in the request is invalid.' }, 'UnrecognizedClientException', 'authentication_error'],
    [404, { message: 'Could not resolve the foundation model from the provided model identifier.' }, 'ResourceNotFoundException', 'invalid_request_error'],
    [408, { message: 'Model has timed out in processing the request.' }, 'ModelTimeoutException', 'api_error'],
    [424, { message: 'Model returned an error.' }, 'ModelErrorException', 'api_error'],
    [429, { message: 'Too many requests, please wait before trying again.' }, 'ThrottlingException', 'rate_limit_error'],
    [500, { message: 'The server encountered an internal error.' }, 'InternalServerException', 'api_error'],
    [503, { message: 'Bedrock is unable to process your request.' }, 'ServiceUnavailableException', 'api_error'],
  ])('HTTP %i %j → code %s', (status, body, code, type) => {
    expect(bedrockAdapter.toOpenAIError(status, body)).toEqual({ message: body.message, type, code, param: null });
  });

  it('a model that is still loading (HTTP 429, ModelNotReadyException) stands for a retryable 503', () => {
    const body = { message: 'Model is not ready to serve inference requests.' };
    expect(bedrockAdapter.toOpenAIError(429, body)).toEqual({ message: body.message, type: 'api_error', code: 'ModelNotReadyException', param: null, status: 503 });
  });

  it('x-amzn-errortype names the error over the status: a quota error answered with 400 is a 429', () => {
    const summary = bedrockAdapter.toOpenAIError(400, { message: 'quota' }, { 'x-amzn-errortype': 'ServiceQuotaExceededException:http://internal.amazon.com/coral/com.amazon.bedrock/' });
    expect(summary).toEqual({ message: 'quota', type: 'rate_limit_error', code: 'ServiceQuotaExceededException', param: null, status: 429 });
  });

  it('prefers an error name carried in the body, without its namespace', () => {
    const summary = bedrockAdapter.toOpenAIError(400, { __type: 'com.amazon.coral.validate#ValidationException', Message: 'Value at messages failed to satisfy constraint' });
    expect(summary).toEqual({ message: 'Value at messages failed to satisfy constraint', type: 'invalid_request_error', code: 'ValidationException', param: null });
  });

  it('keeps a text body as the message and falls back to the status when there is none', () => {
    expect(bedrockAdapter.toOpenAIError(502, '<html>Bad Gateway</html>').message).toBe('<html>Bad Gateway</html>');
    expect(bedrockAdapter.toOpenAIError(500, undefined)).toEqual({ message: 'Bedrock answered with HTTP 500', type: 'api_error', code: 'InternalServerException', param: null });
  });
});
