import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newWorkspace } from './identities-support.js';

// Saved configs and guardrails page like every other list: limit + next_cursor, and a cursor is refused on a
// list it does not come from (another workspace's), instead of reaching the store as its start key.
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => gateway?.close());

const resources = [
  { path: '/v1/configs', body: (name: string) => ({ name, config: { provider: 'openai', api_key: 'sk-list-test' } }) },
  { path: '/v1/guardrails', body: (name: string) => ({ name, type: 'allowed_request_types', config: { mode: 'allow', endpoints: ['chat/completions'] } }) },
];

describe.each(resources)('listing $path', ({ path, body }) => {
  it('pages with limit and next_cursor, and refuses a cursor from another workspace’s list (400 invalid_cursor)', async () => {
    const other = await newWorkspace(gateway, { name: `cursors ${path}` });
    for (const name of ['a', 'b', 'c']) {
      expect((await api(gateway, 'POST', path, { body: body(`${name}-own`) })).status).toBe(201);
      expect((await api(gateway, 'POST', `${path}?workspace_id=${other.id}`, { body: body(`${name}-other`) })).status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: Array<{ name: string }>; has_more: boolean; next_cursor: string | null } } = await api(gateway, 'GET', `${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((item) => item.name));
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.filter((name) => name.endsWith('-own')).sort()).toEqual(['a-own', 'b-own', 'c-own']);
    expect(seen.some((name) => name.endsWith('-other'))).toBe(false);

    const otherFirst = await api<{ next_cursor: string | null }>(gateway, 'GET', `${path}?limit=1&workspace_id=${other.id}`);
    expect(otherFirst.body.next_cursor).not.toBeNull();
    expectError(await api(gateway, 'GET', `${path}?limit=1&cursor=${otherFirst.body.next_cursor}`), 400, 'invalid_cursor', { param: 'cursor' });
  });
});
