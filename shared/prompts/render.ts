import * as z from 'zod';
import { badRequest } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { PromptRepository, type PromptTemplate } from '../store/prompt-repository.js';
import { parseJsonBody, validate } from '../http/json-body.js';
import { promptRenderBodySchema, type PromptRenderBody, type RenderedPrompt } from './schemas.js';
import { renderTemplateMessages } from './template.js';
import { selectVersion, type VersionSelector } from './versions.js';

/**
 * Reads a render body. The spec puts parameters at the root beside `variables`; a `hyperparameters` key is
 * the most likely mistake, so it gets its own message instead of a generic "unrecognized key".
 */
export function parseRenderBody(request: NeutralRequest): PromptRenderBody {
  const raw = parseJsonBody(request, z.unknown());
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.hasOwn(raw, 'hyperparameters')) {
    throw badRequest(
      'nested_hyperparameters',
      'hyperparameters: pass parameters such as temperature or max_tokens at the root of the body, beside variables, not under a "hyperparameters" key',
      'hyperparameters',
    );
  }
  return validate(promptRenderBodySchema, raw);
}

/**
 * The spec's rendered prompt: the template's messages with the variables filled in (then any `messages` of
 * the body, e.g. conversation history, unrendered), the model, the stored defaults, and the body's root
 * parameters over them. The result is a chat-completions body as it stands.
 */
export function renderTemplate(template: PromptTemplate, body: PromptRenderBody): RenderedPrompt {
  const { variables, messages: extraMessages, model, ...overrides } = body;
  const rendered: RenderedPrompt = {
    messages: [...renderTemplateMessages(template.messages, variables), ...(extraMessages ?? [])] as RenderedPrompt['messages'],
  };
  const chosenModel = model ?? template.model;
  if (chosenModel !== undefined) rendered.model = chosenModel;
  return { ...rendered, ...template.hyperparameters, ...withoutUndefined(overrides) };
}

/** Loads the selected version of a prompt of the workspace and renders it (404 for an unknown prompt or version). */
export async function renderStoredPrompt(
  workspaceId: string,
  promptId: string,
  body: PromptRenderBody,
  selector: VersionSelector,
  repository = new PromptRepository(),
): Promise<{ data: RenderedPrompt; version: number }> {
  const { version } = await selectVersion(repository, workspaceId, promptId, selector);
  return { data: renderTemplate(version.template, body), version: version.version };
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
