import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStore, type EmbeddedStore } from '../../../infra/local/embedded-store.js';
import { parseSettings } from '../../../shared/settings.js';
import { storeHttpsAgentOptions, StoreTlsSettingsError } from '../../../shared/store/store-tls.js';

/**
 * DB_SSL* against a real TLS proxy in front of the embedded store: certificates are made with openssl here, the
 * client is the real AWS SDK with the https agent options gw builds from its settings.
 */
let dir: string;
let store: EmbeddedStore;
let proxy: TlsServer;
let mtlsProxy: TlsServer;
const pem = (name: string) => readFileSync(join(dir, name), 'utf8');

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, a server certificate for `localhost` signed by it, a client certificate, and an unrelated CA. */
function makeCertificates(): void {
  const ca = (name: string) => openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
  ca('ca');
  ca('wrong-ca');
  const signed = (name: string, extensions: string) => {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  };
  signed('localhost', 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed('client', 'extendedKeyUsage=clientAuth\n');
}

/** A TLS terminator that pipes each connection to the embedded store's plain port. */
async function startProxy(storePort: number, mutual: boolean): Promise<TlsServer> {
  const server = createTlsServer(
    { key: pem('localhost.key'), cert: pem('localhost.crt'), ca: pem('ca.crt'), requestCert: mutual, rejectUnauthorized: mutual },
    (socket) => {
      const upstream = connect(storePort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', close);
      upstream.on('error', close);
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const portOf = (server: TlsServer) => (server.address() as AddressInfo).port;

/** ListTables through the proxy with the agent options gw derives from these settings. */
async function listTables(env: Record<string, string>): Promise<string[]> {
  const config = parseSettings(env);
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: config.GW_DYNAMODB_ENDPOINT,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ httpsAgent: new HttpsAgent(storeHttpsAgentOptions(config)), connectionTimeout: 5_000 }),
  });
  try {
    return (await client.send(new ListTablesCommand({}))).TableNames ?? [];
  } finally {
    client.destroy();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-store-tls-'));
  makeCertificates();
  store = await startEmbeddedStore(':memory:');
  const storePort = Number(new URL(store.endpoint).port);
  proxy = await startProxy(storePort, false);
  mtlsProxy = await startProxy(storePort, true);
});

afterAll(async () => {
  for (const server of [proxy, mtlsProxy]) await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DB_SSL against a TLS proxy in front of the embedded store', () => {
  it('VERIFY_CA trusts a certificate chaining to DB_SSL_CA, whatever host name it carries', async () => {
    const tables = await listTables({ GW_DYNAMODB_ENDPOINT: `https://127.0.0.1:${portOf(proxy)}`, DB_SSL: 'VERIFY_CA', DB_SSL_CA: pem('ca.crt') });
    expect(tables).toEqual([]);
  });

  it('VERIFY_CA refuses a certificate from another CA', async () => {
    await expect(
      listTables({ GW_DYNAMODB_ENDPOINT: `https://127.0.0.1:${portOf(proxy)}`, DB_SSL: 'VERIFY_CA', DB_SSL_CA: join(dir, 'wrong-ca.crt') }),
    ).rejects.toThrow(/certificate/i);
  });

  it('VERIFY_IDENTITY also checks the host name: localhost passes, 127.0.0.1 does not', async () => {
    await expect(listTables({ GW_DYNAMODB_ENDPOINT: `https://localhost:${portOf(proxy)}`, DB_SSL: 'verify_identity', DB_SSL_CA: join(dir, 'ca.crt') })).resolves.toEqual([]);
    await expect(
      listTables({ GW_DYNAMODB_ENDPOINT: `https://127.0.0.1:${portOf(proxy)}`, DB_SSL: 'VERIFY_IDENTITY', DB_SSL_CA: join(dir, 'ca.crt') }),
    ).rejects.toThrow(/altnames|IP: 127\.0\.0\.1/i);
  });

  it('REQUIRED encrypts without verifying; with no DB_SSL the private CA is not trusted', async () => {
    await expect(listTables({ GW_DYNAMODB_ENDPOINT: `https://127.0.0.1:${portOf(proxy)}`, DB_SSL: 'REQUIRED' })).resolves.toEqual([]);
    await expect(listTables({ GW_DYNAMODB_ENDPOINT: `https://localhost:${portOf(proxy)}` })).rejects.toThrow(/certificate/i);
  });

  it('mutual TLS: a client certificate from DB_SSL_CERT/DB_SSL_KEY is accepted; without one the proxy refuses', async () => {
    const endpoint = `https://localhost:${portOf(mtlsProxy)}`;
    await expect(
      listTables({ GW_DYNAMODB_ENDPOINT: endpoint, DB_SSL: 'VERIFY_IDENTITY', DB_SSL_CA: pem('ca.crt'), DB_SSL_CERT: join(dir, 'client.crt'), DB_SSL_KEY: pem('client.key') }),
    ).resolves.toEqual([]);
    await expect(listTables({ GW_DYNAMODB_ENDPOINT: endpoint, DB_SSL: 'VERIFY_IDENTITY', DB_SSL_CA: pem('ca.crt') })).rejects.toThrow();
  });
});

describe('DB_SSL settings that contradict each other fail at start', () => {
  const options = (env: Record<string, string>) => () => storeHttpsAgentOptions(parseSettings(env));

  it('DISABLED with an https endpoint, REQUIRED or VERIFY_* with an http one', () => {
    expect(options({ GW_DYNAMODB_ENDPOINT: 'https://store.example:8000', DB_SSL: 'DISABLED' })).toThrow(StoreTlsSettingsError);
    expect(options({ GW_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', DB_SSL: 'REQUIRED' })).toThrow(/needs an https/);
    expect(options({ GW_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', DB_SSL: 'VERIFY_CA' })).toThrow(/needs an https/);
    expect(options({ GW_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', DB_SSL: 'DISABLED' })()).toEqual({});
  });

  it('a client certificate without its key, an unreadable CA file, an unknown mode', () => {
    expect(options({ GW_DYNAMODB_ENDPOINT: 'https://store.example', DB_SSL: 'VERIFY_CA', DB_SSL_CERT: pem('client.crt') })).toThrow(/go together/);
    expect(options({ GW_DYNAMODB_ENDPOINT: 'https://store.example', DB_SSL: 'VERIFY_CA', DB_SSL_CA: '/nonexistent/ca.pem' })).toThrow(/ENOENT/);
    expect(() => parseSettings({ DB_SSL: 'SOMETIMES' })).toThrow(/DB_SSL/);
  });

  it('applies nothing to AWS’s own endpoint (no GW_DYNAMODB_ENDPOINT): the SDK verifies TLS itself', () => {
    expect(options({ DB_SSL: 'REQUIRED' })()).toEqual({});
  });

  it('a cloud bundle verifies against the public roots with host-name checks', () => {
    const built = options({ GW_DYNAMODB_ENDPOINT: 'https://store.example', DB_SSL: 'aws' })();
    expect(built.rejectUnauthorized).toBe(true);
    expect(built.checkServerIdentity).toBeUndefined();
    expect((built.ca as string[]).length).toBeGreaterThan(50);
  });
});
