import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { newKey, newWorkspace } from './identities-support.js';
import { patchOp, scim, USER } from './scim-support.js';

/**
 * Where SCIM's uniqueness (RFC 7644 §3.3: 409 `uniqueness`) holds. A workspace-confined key's users are workspace
 * identities: userName and e-mail are unique among the identities of its workspace (the tenancy RFC 7643 §2.1's
 * "server" uniqueness speaks of), and nowhere else, so two workspaces' keys provision the same name independently.
 * An organisation admin key keeps organisation-wide uniqueness and its precise messages.
 * Class: uniqueness scoped to what the caller can see.
 */
let gateway: TestGateway;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  keyA = (await newKey(gateway, { workspace_id: (await newWorkspace(gateway)).id, scopes: ['scim'] })).key;
  keyB = (await newKey(gateway, { workspace_id: (await newWorkspace(gateway)).id, scopes: ['scim'] })).key;
});
afterAll(async () => {
  await gateway?.close();
});

const userBody = (userName: string, email: string) => ({ schemas: [USER], userName, emails: [{ value: email, primary: true }], active: true });

describe('a workspace-confined SCIM key and uniqueness', () => {
  it('refuses a userName or e-mail its own workspace already has (409 uniqueness), case-insensitively', async () => {
    const suffix = randomUUID().slice(0, 8);
    const first = await scim<{ id: string }>(gateway, 'POST', '/Users', userBody(`dup-${suffix}`, `dup-${suffix}@example.com`), keyA);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const sameName = await scim(gateway, 'POST', '/Users', userBody(`DUP-${suffix}`, `other-${suffix}@example.com`), keyA);
    expect(sameName.status).toBe(409);
    expect(sameName.body).toMatchObject({ scimType: 'uniqueness', detail: expect.stringContaining('in this workspace') });
    const sameAddress = await scim(gateway, 'POST', '/Users', userBody(`other-${suffix}`, `Dup-${suffix}@example.com`), keyA);
    expect(sameAddress.status).toBe(409);
    expect(sameAddress.body.scimType).toBe('uniqueness');
    // The refused creates left nothing behind: their userNames are free.
    expect((await scim(gateway, 'POST', '/Users', userBody(`other-${suffix}`, `other-${suffix}@example.com`), keyA)).status).toBe(201);
    // A rename onto a name its workspace has is refused too, and the user keeps its name.
    const renamed = await scim(gateway, 'PATCH', `/Users/${first.body.id}`, patchOp({ op: 'replace', path: 'userName', value: `other-${suffix}` }), keyA);
    expect(renamed.status).toBe(409);
    expect((await scim(gateway, 'GET', `/Users/${first.body.id}`, undefined, keyA)).body.userName).toBe(`dup-${suffix}`);
  });

  it('lets another workspace’s key provision the same userName and e-mail: a different identity', async () => {
    const suffix = randomUUID().slice(0, 8);
    const inA = await scim<{ id: string }>(gateway, 'POST', '/Users', userBody(`shared-${suffix}`, `shared-${suffix}@example.com`), keyA);
    const inB = await scim<{ id: string }>(gateway, 'POST', '/Users', userBody(`shared-${suffix}`, `shared-${suffix}@example.com`), keyB);
    expect([inA.status, inB.status]).toEqual([201, 201]);
    expect(inB.body.id).not.toBe(inA.body.id);
  });
});

describe('an organisation admin SCIM key and uniqueness', () => {
  it('keeps organisation-wide uniqueness with its precise answers', async () => {
    const suffix = randomUUID().slice(0, 8);
    expect((await scim(gateway, 'POST', '/Users', userBody(`admin-${suffix}`, `admin-${suffix}@example.com`))).status).toBe(201);
    const sameName = await scim(gateway, 'POST', '/Users', userBody(`admin-${suffix}`, `other-${suffix}@example.com`));
    expect(sameName.status).toBe(409);
    expect(String(sameName.body.detail)).toContain('already provisioned');
    const sameAddress = await scim(gateway, 'POST', '/Users', userBody(`another-${suffix}`, `admin-${suffix}@example.com`));
    expect(sameAddress.status).toBe(409);
    expect(String(sameAddress.body.detail)).toContain('already exists in the organisation');
  });

  it('does not see workspace identities among the organisation’s users', async () => {
    const suffix = randomUUID().slice(0, 8);
    expect((await scim(gateway, 'POST', '/Users', userBody(`ws-only-${suffix}`, `ws-only-${suffix}@example.com`), keyA)).status).toBe(201);
    const listed = await scim<{ totalResults: number }>(gateway, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "ws-only-${suffix}"`)}`);
    expect(listed.body.totalResults).toBe(0);
    // Nor does a workspace identity hold the organisation's name: the admin key provisions it.
    expect((await scim(gateway, 'POST', '/Users', userBody(`ws-only-${suffix}`, `ws-only-${suffix}@example.com`))).status).toBe(201);
  });
});
