import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type GwClient } from '../../../sdk/js/src/index.js';
import { OpenAI7, installedNode22ClientVersion } from '../../clients/node22/clients.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { chatStream, openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

// The SDK built on openai 7 (installed in test/clients/node22, the client releases that declare Node >= 22), as it
// runs beside openai 7 in a user's project. js-sdk.test.ts runs the same SDK on openai 6; these run on Node 20 and 24.
vi.mock('openai', async () => (await import('../../clients/node22/clients.js')).openai7Module);

let gateway: TestGateway;
let upstream: MockUpstream;
let client: GwClient;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
beforeAll(() => {
  client = createClient({ apiKey: gateway.apiKey, baseURL: `${gateway.url}/v1`, provider: 'openai', customHost: upstream.url, providerApiKey: 'sk-provider-token', openai: { maxRetries: 0 } });
});

const installedVersion = (name: string) => (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
const major = (version: string) => Number(version.split('.')[0]);
/** The majors a range of caret alternatives (`^6.0.0 || ^7.0.0`) accepts. */
const caretMajors = (range: string) => range.split('||').map((part) => Number(/^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(part)?.[1]));

describe('sdk/js with openai 7', () => {
  it('declares openai 6 and 7 as its peer, and both installed majors satisfy it', () => {
    const peer = (JSON.parse(readFileSync('sdk/js/package.json', 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies.openai;
    expect(caretMajors(peer)).toEqual([6, 7]);
    expect(major(installedVersion('openai'))).toBe(6);
    expect(major(installedNode22ClientVersion('openai'))).toBe(7);
  });

  it('is an openai 7 client that runs chat completions through gw with gw’s headers', async () => {
    expect(client).toBeInstanceOf(OpenAI7);
    upstream.setHandler(openAIMockHandler());
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0].message.content).toBe('Hello from the mock provider!');
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-provider-token');
  });

  it('streams, takes per-request values with withOptions, and surfaces gw errors through openai 7’s error classes', async () => {
    upstream.setHandler(() => ({ chunks: chatStream('gpt-4o-mini', 'one two three') }));
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('one two three');

    upstream.setHandler(openAIMockHandler());
    const { response } = await client.withOptions({ traceId: 'sdk7-trace' }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(response.headers.get('x-gw-trace-id')).toBe('sdk7-trace');

    const wrongKey = createClient({ apiKey: 'gwk_nope', baseURL: `${gateway.url}/v1`, provider: 'openai', providerApiKey: 'x', openai: { maxRetries: 0 } });
    const failure = await wrongKey.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI7.APIError);
    expect(failure).toMatchObject({ status: 401 });
  });

  it('reads the control plane (typed helpers) beside an openai 7 client', async () => {
    const config = await client.configs.create({ name: 'sdk7-config', config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] } });
    expect(config.id).toEqual(expect.any(String));
  });
});
