import { KnownCredentials } from '../observability/redact.js';
import type { SecretStore } from '../store/secrets/secret-store.js';
import { readMcpServerSecret, upstreamAuthHeaders } from './credentials.js';
import { describeSyncFailure, fetchServerMetadata } from './handshake.js';
import type { McpServerRecord, McpServerSecret } from './types.js';

/**
 * Runs the handshake against the server and returns the record with the outcome: `synced` with fresh metadata,
 * or `failed` with the reason (the metadata of the last good sync is kept, so a blip does not empty a catalogue).
 */
export async function syncedRecord(record: McpServerRecord, secrets: SecretStore, knownSecret?: McpServerSecret): Promise<McpServerRecord> {
  const attemptedAt = new Date().toISOString();
  let secret: McpServerSecret | undefined;
  try {
    secret = record.auth_type === 'none' ? undefined : (knownSecret ?? (await readMcpServerSecret(secrets, record.workspace_id, record.id)));
    const metadata = await fetchServerMetadata(record.url, upstreamAuthHeaders(record, secret));
    const { sync_error: _previousError, ...rest } = record;
    return { ...rest, metadata, sync_status: 'synced', synced_at: attemptedAt };
  } catch (error) {
    // A server may quote the credential back in its error: the stored text never holds it (nor any credential-shaped text).
    const known = new KnownCredentials();
    known.add(secret?.value);
    return { ...record, sync_status: 'failed', synced_at: attemptedAt, sync_error: describeSyncFailure(error, known) };
  }
}
