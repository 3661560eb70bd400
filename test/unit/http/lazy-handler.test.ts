import { describe, expect, it } from 'vitest';
import { handlerOnFirstRequest } from '../../../shared/http/lazy-handler.js';
import { jsonResponse, type Handler, type NeutralRequest } from '../../../shared/http/types.js';

const request = { method: 'POST', path: '/v1/x', headers: {}, query: {}, body: Buffer.alloc(0) } as unknown as NeutralRequest;

describe('handlerOnFirstRequest', () => {
  it('loads the handler once, on the first request, and serves every request with it', async () => {
    let loads = 0;
    const handler = handlerOnFirstRequest(async () => {
      loads += 1;
      const served: Handler = async (_request, params) => jsonResponse(200, { id: params.id });
      return served;
    });
    expect(loads).toBe(0);
    const answers = await Promise.all([handler(request, { id: 'a' }), handler(request, { id: 'b' })]);
    expect(answers.map((answer) => answer.body)).toEqual([JSON.stringify({ id: 'a' }), JSON.stringify({ id: 'b' })]);
    await handler(request, { id: 'c' });
    expect(loads).toBe(1);
  });

  it('gives a failed import to the requests that waited for it, then tries again on the next request', async () => {
    let loads = 0;
    const handler = handlerOnFirstRequest(async () => {
      loads += 1;
      if (loads === 1) throw new Error('chunk missing');
      return async () => jsonResponse(200, { ok: true });
    });
    await expect(handler(request, {})).rejects.toThrow('chunk missing');
    expect((await handler(request, {})).status).toBe(200);
    expect(loads).toBe(2);
  });
});
