import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { CounterRepository } from '../../../shared/store/counter-repository.js';
import type { TestGateway } from '../../support/gateway.js';
import { createPolicy, creditCounter } from '../enforcement/enforcement-support.js';
import type { MediaMock } from './media-mock.js';
import { useGatewayWithMedia } from './passthrough-support.js';

// A pass-through read answer is charged before it leaves, as a chat answer is: the next request of the same
// key sees exact counters (the media mock's image answer reports 30 total tokens). The gateway runs in this
// process; every counter charge is held back 300 ms, so a charge left to the after-path lands after the answer.
let gateway: TestGateway;
let media: MediaMock;

useGatewayWithMedia((started) => ({ gateway, media } = started));

describe('pass-through usage settlement', () => {
  it('charges a buffered answer’s tokens to the usage limit before the answer leaves', async () => {
    const policy = await createPolicy(gateway, 'usage-limits', {
      name: 'image tokens',
      conditions: [{ key: 'metadata._user', value: 'painter' }],
      group_by: [{ key: 'metadata._user' }],
      type: 'requests',
      unit: 'rpd',
      value: 1_000,
      credit_limit: { type: 'tokens', value: 45 },
      periodic_reset: 'monthly',
    });
    const headers = { 'x-gw-provider': 'openai', 'x-gw-custom-host': media.url, authorization: 'Bearer sk-provider-token', 'x-gw-metadata': JSON.stringify({ _user: 'painter' }) };

    const add = CounterRepository.prototype.add;
    const slowAdd = vi.spyOn(CounterRepository.prototype, 'add').mockImplementation(async function (this: CounterRepository, ...args) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return add.apply(this, args);
    });
    onTestFinished(() => slowAdd.mockRestore());

    const first = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox' }, headers);
    expect(first.status).toBe(200);
    // Read at once, with no waiting: the charge landed before the answer did.
    expect(await creditCounter(policy, { 'metadata._user': 'painter' })).toBe(30);

    const second = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'owl' }, headers);
    expect(second.status).toBe(200);
    expect(await creditCounter(policy, { 'metadata._user': 'painter' })).toBe(60);
    // 60 of 45 tokens used: the third is refused at once.
    const third = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'cat' }, headers);
    expect(third.status).toBe(412);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('usage_limit_exhausted');
  });
});
