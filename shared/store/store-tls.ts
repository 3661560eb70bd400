import { readFileSync } from 'node:fs';
import type { AgentOptions } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { DbSslMode } from '../store-tls-settings.js';

/**
 * TLS towards a custom DynamoDB-compatible endpoint (`GW_DYNAMODB_ENDPOINT` over https), from the spec's
 * database settings. On AWS's own endpoint the SDK always verifies TLS and these settings do not apply.
 *
 * - `DISABLED`: no TLS; an https endpoint is a configuration error.
 * - `PREFERRED`: TLS when the endpoint is https, without certificate verification.
 * - `REQUIRED`: the endpoint must be https; the certificate is not verified (encryption only).
 * - `VERIFY_CA`: the certificate must chain to `DB_SSL_CA` (or the public roots); the host name is not checked.
 * - `VERIFY_IDENTITY`: as VERIFY_CA, and the certificate must name the endpoint's host.
 * - `AWS`, `AZURE`, `GCP`: a cloud provider's bundle: the public root store, with VERIFY_IDENTITY.
 *
 * `DB_SSL_CERT` + `DB_SSL_KEY` add a client certificate (mutual TLS). Each certificate setting holds PEM text or
 * the path of a PEM file.
 */
export interface StoreTlsSettings {
  GW_DYNAMODB_ENDPOINT?: string;
  DB_SSL?: DbSslMode;
  DB_SSL_CA?: string;
  DB_SSL_CERT?: string;
  DB_SSL_KEY?: string;
}

export class StoreTlsSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreTlsSettingsError';
  }
}

const CLOUD_BUNDLES: ReadonlySet<DbSslMode> = new Set(['AWS', 'AZURE', 'GCP']);

/**
 * The https agent options for the store client. Empty when there is no custom https endpoint or no DB_SSL
 * setting (Node's defaults: verified against the public roots). Throws StoreTlsSettingsError on a
 * contradiction, so a misconfiguration fails at start rather than silently downgrading.
 */
export function storeHttpsAgentOptions(config: StoreTlsSettings): AgentOptions {
  const endpoint = config.GW_DYNAMODB_ENDPOINT;
  if (!endpoint) return {};
  const https = new URL(endpoint).protocol === 'https:';
  const mode = config.DB_SSL;
  if (mode === 'DISABLED') {
    if (https) throw new StoreTlsSettingsError('DB_SSL=DISABLED but GW_DYNAMODB_ENDPOINT is https: use an http endpoint or another DB_SSL mode');
    return {};
  }
  if (mode === 'REQUIRED' && !https) throw new StoreTlsSettingsError('DB_SSL=REQUIRED needs an https GW_DYNAMODB_ENDPOINT');
  if ((mode === 'VERIFY_CA' || mode === 'VERIFY_IDENTITY' || (mode && CLOUD_BUNDLES.has(mode))) && !https) {
    throw new StoreTlsSettingsError(`DB_SSL=${mode} needs an https GW_DYNAMODB_ENDPOINT`);
  }
  if (!https) return {};
  if (Boolean(config.DB_SSL_CERT) !== Boolean(config.DB_SSL_KEY)) {
    throw new StoreTlsSettingsError('DB_SSL_CERT and DB_SSL_KEY go together (mutual TLS needs both)');
  }
  const options: AgentOptions = {};
  if (config.DB_SSL_CERT && config.DB_SSL_KEY) {
    options.cert = readPem(config.DB_SSL_CERT, 'DB_SSL_CERT');
    options.key = readPem(config.DB_SSL_KEY, 'DB_SSL_KEY');
  }
  switch (mode) {
    case undefined:
      if (config.DB_SSL_CA) options.ca = readPem(config.DB_SSL_CA, 'DB_SSL_CA');
      return options;
    case 'PREFERRED':
    case 'REQUIRED':
      return { ...options, rejectUnauthorized: false };
    case 'VERIFY_CA':
      return {
        ...options,
        rejectUnauthorized: true,
        ...(config.DB_SSL_CA ? { ca: readPem(config.DB_SSL_CA, 'DB_SSL_CA') } : {}),
        // The chain is verified by OpenSSL; only the host-name check is skipped.
        checkServerIdentity: () => undefined,
      };
    case 'VERIFY_IDENTITY':
      return { ...options, rejectUnauthorized: true, ...(config.DB_SSL_CA ? { ca: readPem(config.DB_SSL_CA, 'DB_SSL_CA') } : {}) };
    default:
      // A cloud provider's bundle: its endpoints chain to public roots, so the bundled root store is the bundle.
      return { ...options, rejectUnauthorized: true, ca: [...rootCertificates] };
  }
}

/** PEM text as given, or the contents of the file it names. The setting's value is never echoed (it may be a key). */
function readPem(value: string, setting: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new StoreTlsSettingsError(`${setting} is neither PEM text nor a readable file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}
