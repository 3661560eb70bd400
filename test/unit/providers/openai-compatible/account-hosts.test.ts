import { describe, expect, it } from 'vitest';
import { readRequestOptions } from '../../../../shared/gateway/request-options.js';
import { GatewayError } from '../../../../shared/http/errors.js';
import { findProvider } from '../../../../shared/providers/registry.js';
import type { AdapterInput, Endpoint, TargetSettings } from '../../../../shared/providers/types.js';

// Issue #47: providers addressed per account (Cloudflare account id in the path, Databricks workspace host,
// Snowflake account host, Azure AI resource). The account comes from an x-gw-<provider>-… header, checked when the
// headers are read, so the URL gw builds always stays on the provider's own domain.

const CF_ACCOUNT = '0123456789abcdef0123456789abcdef';

function input(slug: string, endpoint: Endpoint, target: Partial<TargetSettings>): AdapterInput {
  const body = endpoint === 'embeddings' ? { model: 'm', input: 'hi' } : { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  return { endpoint, body, stream: false, target: { provider: slug, apiKey: 'tok-1', ...target }, forwardHeaders: {} };
}

async function call(slug: string, endpoint: Endpoint, accounts: Record<string, string>) {
  return (await findProvider(slug)!.load()).buildCall(input(slug, endpoint, { accounts }));
}

function thrown(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('per-account OpenAI-compatible providers (issue #47)', () => {
  it('default host from the account: Cloudflare Workers AI puts the account id in the path, Bearer auth', async () => {
    const accounts = readRequestOptions({ 'x-gw-cloudflare-account-id': CF_ACCOUNT.toUpperCase() }).accounts;
    const chat = await call('cloudflare', 'chat', accounts);
    expect(chat.url).toBe(`https://api.cloudflare.com/client/v4/accounts/${CF_ACCOUNT}/ai/v1/chat/completions`);
    expect(chat.headers.authorization).toBe('Bearer tok-1');
    expect((await call('workers-ai', 'embeddings', accounts)).url).toBe(`https://api.cloudflare.com/client/v4/accounts/${CF_ACCOUNT}/ai/v1/embeddings`);
  });

  it('default host from the account: Databricks serving endpoints on the workspace host (AWS and Azure workspaces)', async () => {
    const aws = readRequestOptions({ 'x-gw-databricks-workspace': 'dbc-1234abcd-5678.cloud.databricks.com' }).accounts;
    expect((await call('databricks', 'chat', aws)).url).toBe('https://dbc-1234abcd-5678.cloud.databricks.com/serving-endpoints/chat/completions');
    const azure = readRequestOptions({ 'x-gw-databricks-workspace': 'adb-1234567890123456.7.azuredatabricks.net' }).accounts;
    expect((await call('databricks', 'embeddings', azure)).url).toBe('https://adb-1234567890123456.7.azuredatabricks.net/serving-endpoints/embeddings');
  });

  it('default host from the account: Snowflake Cortex on the account host', async () => {
    const accounts = readRequestOptions({ 'x-gw-snowflake-account': 'MyOrg-MyAccount' }).accounts;
    expect((await call('snowflake', 'chat', accounts)).url).toBe('https://myorg-myaccount.snowflakecomputing.com/api/v2/cortex/v1/chat/completions');
  });

  it('auth header quirk: Azure AI Inference sends the key as api-key with its api-version, never as a Bearer', async () => {
    const accounts = readRequestOptions({ 'x-gw-azure-ai-resource': 'my-foundry' }).accounts;
    const chat = await call('azure-ai', 'chat', accounts);
    expect(chat.url).toBe('https://my-foundry.services.ai.azure.com/models/chat/completions?api-version=2024-05-01-preview');
    expect(chat.headers['api-key']).toBe('tok-1');
    expect(chat.headers.authorization).toBeUndefined();
  });

  it('header validation: an account header that could name another host is a 400 naming the header', () => {
    for (const [header, value] of [
      ['x-gw-databricks-workspace', 'evil.example.com'],
      ['x-gw-databricks-workspace', 'x.cloud.databricks.com.evil.example'],
      ['x-gw-cloudflare-account-id', '../../zones'],
      ['x-gw-snowflake-account', 'a/b'],
      ['x-gw-azure-ai-resource', 'res.evil.example'],
    ]) {
      const error = thrown(() => readRequestOptions({ [header]: value }));
      expect(error.status, `${header}: ${value}`).toBe(400);
      expect(error.param).toBe(header);
    }
  });

  it('missing account: a per-account provider without its header (or a custom host) is a 400 naming the header', async () => {
    const adapter = await findProvider('databricks')!.load();
    const error = await Promise.resolve().then(() => adapter.buildCall(input('databricks', 'chat', {}))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).param).toBe('x-gw-databricks-workspace');
    const viaCustomHost = await adapter.buildCall(input('databricks', 'chat', { customHost: 'http://127.0.0.1:9/serving-endpoints' }));
    expect(viaCustomHost.url).toBe('http://127.0.0.1:9/serving-endpoints/chat/completions');
  });
});
