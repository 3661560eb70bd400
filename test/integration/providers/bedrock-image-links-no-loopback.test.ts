import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startImageServer, type ImageServer } from './bedrock-image-server.js';

/**
 * With loopback refused (the Lambda's default), an image link may not reach the gateway's own host: neither by an
 * address or name that says so (checked before the call) nor by a name that only DNS turns into a loopback address
 * (checked at connect time, on the address actually returned). The name used is one /etc/hosts maps to 127.0.0.1.
 */
let gateway: TestGateway;
let images: ImageServer;
let loopbackName: string | undefined;

beforeAll(async () => {
  images = await startImageServer(1000);
  gateway = await startTestGateway({ GW_ALLOW_LOOPBACK_HOSTS: 'OFF' });
  for (const name of ['vm', 'runsc']) {
    const resolved = await lookup(name).catch(() => undefined);
    if (resolved?.address.startsWith('127.')) {
      loopbackName = name;
      break;
    }
  }
});
afterAll(async () => {
  await gateway.close();
  await images.close();
});

// No custom host: the Bedrock call is never made, because the image fetch fails first.
const headers = { 'x-gw-provider': 'bedrock', 'x-gw-aws-access-key-id': 'AKIDEXAMPLE', 'x-gw-aws-secret-access-key': 'secret', 'x-gw-aws-region': 'us-east-1' };
const withImage = (url: string) => ({
  model: 'amazon.nova-lite-v1:0',
  messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
});

async function refusal(url: string): Promise<{ status: number; body: { error: { code: string; message: string; param: string } } }> {
  const response = await gateway.post('/v1/chat/completions', withImage(url), headers);
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string; param: string } } };
}

describe('Bedrock image links when loopback hosts are refused', () => {
  it('refuses a loopback address or localhost before connecting', async () => {
    for (const url of [`${images.url}/cat.png`, `http://localhost:${images.port}/cat.png`, `http://[::1]:${images.port}/cat.png`]) {
      const { status, body } = await refusal(url);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'image_url_not_allowed', param: 'messages[0].content[0].image_url.url', message: expect.stringContaining('loopback addresses are refused') });
    }
    expect(images.requests).toHaveLength(0);
  });

  it('refuses at connect time a host name that resolves to loopback', async () => {
    expect(loopbackName, 'this machine maps a non-localhost name to 127.0.0.1 in /etc/hosts').toBeDefined();
    const { status, body } = await refusal(`http://${loopbackName}:${images.port}/cat.png`);
    expect(status).toBe(400);
    expect(body.error.code).toBe('image_url_not_allowed');
    expect(body.error.message).toContain(`${loopbackName} resolves to a refused address: loopback addresses are refused here`);
    expect(images.requests).toHaveLength(0);
  });
});
