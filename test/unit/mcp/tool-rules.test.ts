import { describe, expect, it } from 'vitest';
import { filterServerMessage, inspectPost } from '../../../shared/mcp/jsonrpc.js';
import { relayServerEvents } from '../../../shared/mcp/sse-relay.js';
import { isToolAllowed } from '../../../shared/mcp/tool-rules.js';

describe('tool rules', () => {
  it('allows everything without rules, only the allow list with one, and lets deny win', () => {
    expect(isToolAllowed(undefined, 'anything')).toBe(true);
    expect(isToolAllowed({ allow: ['search_*', 'get'] }, 'search_code')).toBe(true);
    expect(isToolAllowed({ allow: ['search_*', 'get'] }, 'get')).toBe(true);
    expect(isToolAllowed({ allow: ['search_*', 'get'] }, 'getter')).toBe(false);
    expect(isToolAllowed({ allow: ['search_*'], deny: ['search_secrets'] }, 'search_secrets')).toBe(false);
    expect(isToolAllowed({ deny: ['*'] }, 'echo')).toBe(false);
    expect(isToolAllowed({ allow: [] }, 'echo')).toBe(false);
  });
});

describe('JSON-RPC inspection', () => {
  const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

  it('splits a batch: denied calls answered by gw, the rest forwarded, every call noted', () => {
    const inspected = inspectPost([call(1, 'echo'), call(2, 'rm'), { jsonrpc: '2.0', method: 'notifications/initialized' }], { deny: ['rm'] });
    expect(inspected.isBatch).toBe(true);
    expect(inspected.forward).toEqual([call(1, 'echo'), { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(inspected.denied).toEqual([{ jsonrpc: '2.0', id: 2, error: { code: -32602, message: expect.stringContaining("'rm'"), data: { reason: 'tool_denied' } } }]);
    expect(inspected.toolCalls).toEqual([
      { id: 1, name: 'echo', allowed: true },
      { id: 2, name: 'rm', allowed: false },
    ]);
  });

  it('treats a call without a tool name as denied under an allow list', () => {
    const inspected = inspectPost({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: {} }, { allow: ['echo'] });
    expect(inspected.forward).toEqual([]);
    expect(inspected.denied[0].id).toBe('a');
  });

  it('hides denied tools in tools/list results, single or batched, and reports each response', () => {
    const list = { jsonrpc: '2.0', id: 3, result: { tools: [{ name: 'echo' }, { name: 'rm' }], nextCursor: 'x' } };
    const single = filterServerMessage(list, { deny: ['rm'] });
    expect(single).toEqual({ message: { ...list, result: { tools: [{ name: 'echo' }], nextCursor: 'x' } }, changed: true, responses: [{ id: 3, failed: false }] });
    const batch = filterServerMessage([list, { jsonrpc: '2.0', id: 4, result: { isError: true, content: [] } }], { allow: ['echo'] });
    expect(batch.responses).toEqual([
      { id: 3, failed: false },
      { id: 4, failed: true },
    ]);
    expect(filterServerMessage(list, {}).changed).toBe(false);
    expect(filterServerMessage({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, {}).responses).toEqual([]);
  });
});

describe('SSE relay', () => {
  it('filters events split across chunks, keeps ids and event names, and ends once', async () => {
    const event = `id: 7\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo' }, { name: 'rm' }] } })}\n\n`;
    const bytes = new TextEncoder().encode(`${event}data: not json\n\n`);
    const chunks = [bytes.slice(0, 10), bytes.slice(10, 45), bytes.slice(45)];
    let destroyed = 0;
    const upstream = Object.assign(
      (async function* () {
        yield* chunks;
      })(),
      { destroy: () => void destroyed++ },
    );
    const seen: unknown[] = [];
    const ends: unknown[] = [];
    let text = '';
    for await (const chunk of relayServerEvents(upstream, { deny: ['rm'] }, (responses) => seen.push(...responses), (error) => ends.push(error))) text += new TextDecoder().decode(chunk);
    expect(text).toBe(`id: 7\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo' }] } })}\n\ndata: not json\n\n`);
    expect(seen).toEqual([{ id: 1, failed: false }]);
    expect(ends).toEqual([undefined]);
    expect(destroyed).toBe(1);
  });
});
