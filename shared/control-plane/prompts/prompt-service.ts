import { randomUUID } from 'node:crypto';
import { badRequest, GatewayError } from '../../http/errors.js';
import { PromptConflictError, PromptRepository, type PromptRecord, type PromptTemplate, type PromptVersionRecord } from '../../store/prompt-repository.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import type { WorkspaceScope } from '../versioned/types.js';
import { BUILT_IN_LABELS, LABEL_PATTERN, type PromptCreate, type PromptUpdate, type PromptVersionView, type PromptView } from './schemas.js';
import { validateTemplateMessages } from '../../prompts/template.js';
import { assertPromptId, promptNotFound, readVersionSelector, selectVersion } from '../../prompts/versions.js';

/** Prompts with versions: every update writes a new version; publishing and labels only move pointers. */
export class PromptService implements CrudService<PromptView, PromptCreate, PromptUpdate, undefined> {
  constructor(private readonly repository = new PromptRepository()) {}

  async create({ principal, workspaceId }: ResourceScope, body: PromptCreate): Promise<PromptView> {
    validateTemplateMessages(body.messages);
    const now = new Date().toISOString();
    const id = randomUUID();
    const head: PromptRecord = {
      id,
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      name: body.name,
      description: body.description,
      latest_version: 1,
      // The first version is the only one, so it is what render uses until another is published.
      published_version: 1,
      labels: {},
      created_at: now,
      updated_at: now,
    };
    const first: PromptVersionRecord = {
      prompt_id: id,
      workspace_id: workspaceId,
      version: 1,
      template: templateOf(body.messages, body.model, body.hyperparameters),
      description: body.version_description,
      created_at: now,
    };
    await this.repository.create(head, first);
    return toPromptView(head, first);
  }

  /** The prompt with the version `?version=` or `?label=` names (the published one by default). */
  async get({ workspaceId }: WorkspaceScope, promptId: string, query: Readonly<Record<string, string>>): Promise<PromptView> {
    const { head, version } = await selectVersion(this.repository, workspaceId, promptId, readVersionSelector(query));
    return toPromptView(head, version);
  }

  async list({ workspaceId }: WorkspaceScope, page: PageRequest): Promise<Page<PromptView>> {
    const result = await this.repository.list(workspaceId, page.limit, page.startKey);
    return toPage(result.items.map((head) => toPromptView(head)), result.nextKey);
  }

  /** A new version from the latest one with the body's changes; unpublished unless `publish` says so. */
  async update({ workspaceId }: WorkspaceScope, promptId: string, body: PromptUpdate): Promise<PromptView> {
    const { version: latest } = await selectVersion(this.repository, workspaceId, promptId, { label: 'latest' });
    if (body.messages) validateTemplateMessages(body.messages);
    const model = body.model === null ? undefined : (body.model ?? latest.template.model);
    const template = templateOf(body.messages ?? latest.template.messages, model, body.hyperparameters ?? latest.template.hyperparameters);
    let result;
    try {
      result = await this.repository.addVersion(workspaceId, promptId, {
        template,
        description: body.version_description,
        name: body.name,
        promptDescription: body.description,
        publish: body.publish === true,
        now: new Date().toISOString(),
      });
    } catch (error) {
      if (error instanceof PromptConflictError) throw new GatewayError(409, 'prompt_update_conflict', error.message);
      throw error;
    }
    if (!result) throw promptNotFound(promptId);
    return toPromptView(result.head, result.version);
  }

  async delete({ workspaceId }: WorkspaceScope, promptId: string): Promise<PromptView> {
    assertPromptId(promptId);
    const deleted = await this.repository.delete(workspaceId, promptId);
    if (!deleted) throw promptNotFound(promptId);
    return toPromptView(deleted);
  }

  async listVersions(workspaceId: string, promptId: string, page: PageRequest): Promise<Page<PromptVersionView>> {
    await this.existing(workspaceId, promptId);
    const result = await this.repository.listVersions(workspaceId, promptId, page.limit, page.startKey);
    return toPage(result.items.map(toVersionView), result.nextKey);
  }

  async getVersion(workspaceId: string, promptId: string, version: number): Promise<PromptVersionView> {
    return toVersionView((await selectVersion(this.repository, workspaceId, promptId, { version })).version);
  }

  async publish(workspaceId: string, promptId: string, version: number): Promise<PromptView> {
    const { version: selected } = await selectVersion(this.repository, workspaceId, promptId, { version });
    const head = await this.repository.setPublished(workspaceId, promptId, version, new Date().toISOString());
    if (!head) throw promptNotFound(promptId);
    return toPromptView(head, selected);
  }

  async setLabel(workspaceId: string, promptId: string, label: string, version: number): Promise<PromptView> {
    assertAssignableLabel(label);
    const { version: selected } = await selectVersion(this.repository, workspaceId, promptId, { version });
    const head = await this.repository.setLabel(workspaceId, promptId, label, version, new Date().toISOString());
    if (!head) throw promptNotFound(promptId);
    return toPromptView(head, selected);
  }

  async removeLabel(workspaceId: string, promptId: string, label: string): Promise<PromptView> {
    assertAssignableLabel(label);
    await this.existing(workspaceId, promptId);
    const head = await this.repository.removeLabel(workspaceId, promptId, label, new Date().toISOString());
    if (!head) throw new GatewayError(404, 'not_found', `Prompt '${promptId}' has no label '${label}'`);
    return toPromptView(head);
  }

  private async existing(workspaceId: string, promptId: string): Promise<PromptRecord> {
    assertPromptId(promptId);
    const head = await this.repository.get(workspaceId, promptId);
    if (!head) throw promptNotFound(promptId);
    return head;
  }
}

function assertAssignableLabel(label: string): void {
  if (!LABEL_PATTERN.test(label)) throw badRequest('invalid_label', 'label must be 1-63 letters, digits, ".", "_" or "-"', 'label');
  if ((BUILT_IN_LABELS as readonly string[]).includes(label)) {
    throw badRequest('reserved_label', `'${label}' is a built-in label; publish a version to move 'published'`, 'label');
  }
}

function templateOf(messages: PromptTemplate['messages'], model: string | undefined, hyperparameters: Record<string, unknown> | undefined): PromptTemplate {
  const template: PromptTemplate = { messages, hyperparameters: hyperparameters ?? {} };
  if (model !== undefined) template.model = model;
  return template;
}

export function toVersionView(version: PromptVersionRecord): PromptVersionView {
  const view: PromptVersionView = {
    object: 'prompt_version',
    prompt_id: version.prompt_id,
    version: version.version,
    messages: version.template.messages as PromptVersionView['messages'],
    hyperparameters: version.template.hyperparameters,
    created_at: version.created_at,
  };
  if (version.description !== undefined) view.description = version.description;
  if (version.template.model !== undefined) view.model = version.template.model;
  return view;
}

export function toPromptView(head: PromptRecord, version?: PromptVersionRecord): PromptView {
  const view: PromptView = {
    object: 'prompt',
    id: head.id,
    workspace_id: head.workspace_id,
    name: head.name,
    latest_version: head.latest_version,
    published_version: head.published_version,
    labels: head.labels ?? {},
    created_at: head.created_at,
    updated_at: head.updated_at,
  };
  if (head.description !== undefined) view.description = head.description;
  if (version) view.version = toVersionView(version);
  return view;
}
