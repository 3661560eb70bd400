import { expect } from 'vitest';
import { createKey } from '../integration/control-plane/policies-support.js';
import { WorkspaceRepository } from '../../shared/store/workspace-repository.js';
import type { TestGateway } from './gateway.js';

/** A workspace of its own (with a budget, when given) and an API key of it: a caller of the batch routes. */
export interface BatchTenant {
  workspaceId: string;
  key: string;
}

export interface BatchAnswer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/** The files and batches routes as one tenant calls them, against one running gateway. */
export interface BatchClient {
  tenant(name: string, options?: { budget?: number; scopes?: string[] }): Promise<BatchTenant>;
  call(who: BatchTenant, method: string, path: string, options?: { json?: unknown; form?: FormData; headers?: Record<string, string> }): Promise<BatchAnswer>;
  /** `POST /v1/files` (purpose batch unless named) with these JSONL lines. */
  upload(who: BatchTenant, lines: string[], purpose?: string): Promise<BatchAnswer>;
  /** Uploads the lines and expects them stored: the new file's id. */
  fileOf(who: BatchTenant, lines: string[]): Promise<string>;
  /** The workspace budget's usage (settled plus reserved). */
  usageOf(workspaceId: string): Promise<number>;
}

export function batchClient(gateway: () => TestGateway): BatchClient {
  const client: BatchClient = {
    async tenant(name, options = {}) {
      const response = await fetch(`${gateway().url}/v1/workspaces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway().apiKey },
        body: JSON.stringify(options.budget === undefined ? { name } : { name, budget: { credit_limit: options.budget } }),
      });
      const created = (await response.json()) as { id: string };
      expect(response.status).toBe(201);
      const key = await createKey({ organisationId: gateway().bootstrap.organisationId, workspaceId: created.id, scopes: options.scopes ?? ['completions:write'] });
      return { workspaceId: created.id, key: key.raw };
    },
    async call(who, method, path, options = {}) {
      const headers: Record<string, string> = { 'x-gw-api-key': who.key, ...options.headers };
      if (options.json !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${gateway().url}${path}`, { method, headers, body: options.form ?? (options.json === undefined ? undefined : JSON.stringify(options.json)) });
      const text = await response.text();
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { text };
      }
      return { status: response.status, body, text };
    },
    async upload(who, lines, purpose = 'batch') {
      const form = new FormData();
      form.set('purpose', purpose);
      form.set('file', new Blob([lines.join('\n') + '\n']), 'input.jsonl');
      return client.call(who, 'POST', '/v1/files', { form });
    },
    async fileOf(who, lines) {
      const answer = await client.upload(who, lines);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.id as string;
    },
    async usageOf(workspaceId) {
      return (await new WorkspaceRepository().getWorkspace(workspaceId))?.budget_current_usage ?? 0;
    },
  };
  return client;
}
