import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../settings.js';
import { dynamoDocumentClient } from '../../store/dynamo-client.js';
import { LOGS_TABLE, tableName } from '../../store/table-definitions.js';
import { logger } from '../logger.js';
import { loadOnce } from '../../cache/load-once.js';
import type { ConfigDocuments, ConfigKind } from './config-documents.js';

/** The document schemas, loaded by the first document a source reads (none on most processes). */
const documentSchemas = loadOnce(() => import('./config-document-schemas.js'));

/** One place model configs can come from. `undefined`: this source has no document for the provider. */
export interface ModelConfigSource {
  readonly name: string;
  fetch<K extends ConfigKind>(kind: K, provider: string): Promise<ConfigDocuments[K] | undefined>;
}

const PROXY_TIMEOUT_MS = 3_000;
const PROXY_PATHS: Record<ConfigKind, string> = { pricing: 'pricing', capabilities: 'general' };

/** A document checked against its schema; an invalid one is logged and ignored, never half-used. */
async function parsed<K extends ConfigKind>(kind: K, provider: string, source: string, value: unknown): Promise<ConfigDocuments[K] | undefined> {
  const result = (await documentSchemas()).DOCUMENT_SCHEMAS[kind].safeParse(value);
  if (result.success) return result.data as ConfigDocuments[K];
  logger.warn('ignoring an invalid model-config document', { source, kind, provider, problem: result.error.issues[0]?.message });
  return undefined;
}

/** The config proxy: GET `{url}/pricing/<provider>` and `{url}/general/<provider>` (the spec's paths). */
export class ProxyConfigSource implements ModelConfigSource {
  readonly name = 'proxy';

  constructor(
    private readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async fetch<K extends ConfigKind>(kind: K, provider: string): Promise<ConfigDocuments[K] | undefined> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/${PROXY_PATHS[kind]}/${encodeURIComponent(provider)}`;
    const response = await this.fetchImpl(url, { signal: AbortSignal.timeout(PROXY_TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`model-config proxy answered ${response.status} for ${PROXY_PATHS[kind]}/${provider}`);
    }
    return parsed(kind, provider, this.name, await response.json());
  }
}

/**
 * The log store (gw's logs table): an item with `pk = MODEL_CONFIG`, `sk = <path>/<provider>` and the document
 * in `document` (a JSON string or a map), under the path MODEL_CONFIGS_*_LOG_STORE_PATH names.
 */
export class LogStoreConfigSource implements ModelConfigSource {
  readonly name = 'log-store';

  constructor(private readonly paths: Partial<Record<ConfigKind, string>>) {}

  async fetch<K extends ConfigKind>(kind: K, provider: string): Promise<ConfigDocuments[K] | undefined> {
    const path = this.paths[kind];
    if (path === undefined) return undefined;
    const result = await dynamoDocumentClient().send(
      new GetCommand({ TableName: tableName(settings(), LOGS_TABLE), Key: logStoreKey(path, provider) }),
    );
    const document: unknown = result.Item?.document;
    if (document === undefined) return undefined;
    return parsed(kind, provider, this.name, typeof document === 'string' ? JSON.parse(document) : document);
  }
}

export function logStoreKey(path: string, provider: string): { pk: string; sk: string } {
  return { pk: 'MODEL_CONFIG', sk: `${path.replace(/\/+$/, '')}/${provider}` };
}

/**
 * Local files, MODEL_CONFIGS_*_LOCAL_PATH: a directory of `<provider>.json` documents, or one JSON file whose
 * top-level keys are providers and whose values are documents.
 */
export class LocalFileConfigSource implements ModelConfigSource {
  readonly name = 'local';

  constructor(private readonly paths: Partial<Record<ConfigKind, string>>) {}

  async fetch<K extends ConfigKind>(kind: K, provider: string): Promise<ConfigDocuments[K] | undefined> {
    const path = this.paths[kind];
    if (path === undefined) return undefined;
    if ((await stat(path)).isDirectory()) {
      const text = await readFile(join(path, `${provider}.json`), 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      return text === undefined ? undefined : parsed(kind, provider, this.name, JSON.parse(text));
    }
    const all = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    return Object.hasOwn(all, provider) ? parsed(kind, provider, this.name, all[provider]) : undefined;
  }
}
