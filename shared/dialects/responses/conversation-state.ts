import { badRequest } from '../../http/errors.js';
import { MAX_ID_CHARS } from '../../http/ids.js';
import type { RequestLogger } from '../../observability/logger.js';
import type { OpenAIBody } from '../../providers/types.js';
import { inputItems } from './request.js';
import { newId } from './response.js';
import { responseRepository } from './response-repository.js';

type Json = Record<string, unknown>;

interface Turn {
  /** This request's own input items (before expansion), each with an id. */
  ownInput: Json[];
  /** The conversation items that preceded this turn. */
  before: Json[];
}

// Keyed by the request's body object: the context carries the body, and the turn belongs to it.
const turns = new WeakMap<OpenAIBody, Turn>();

/**
 * Continues a stored conversation: `previous_response_id` is looked up in the caller's workspace and the earlier
 * input and output items are put in front of this request's `input`, so every provider (not only OpenAI) sees
 * the whole conversation. The body stays in the Responses dialect.
 */
export async function expandPreviousResponse(body: OpenAIBody, workspaceId: string): Promise<OpenAIBody> {
  const own = inputItems(body.input).map((item) => ({ id: newId(item.type === 'function_call_output' ? 'fco' : 'msg'), ...item }));
  const previousId = body.previous_response_id;
  let before: Json[] = [];
  if (typeof previousId === 'string') {
    const previous = await responseRepository().get(workspaceId, previousId);
    if (!previous) {
      throw badRequest('previous_response_not_found', `Previous response with id '${previousId}' not found.`, 'previous_response_id');
    }
    before = [...previous.conversation, ...replayable(previous.response.output)];
  }
  const given = inputItems(body.input);
  const input = await resolveItemReferences(given, workspaceId);
  const expanded: OpenAIBody = before.length > 0 || input !== given ? { ...body, input: [...before, ...input] } : body;
  turns.set(expanded, { ownInput: own, before });
  return expanded;
}

/** Keeps a finished Response (unless the request said `store: false`), so it can be read and continued. */
export async function storeResponse(body: OpenAIBody, workspaceId: string, response: Json, log: RequestLogger): Promise<void> {
  if (body.store === false || typeof response.id !== 'string') return;
  const turn = turns.get(body) ?? { ownInput: inputItems(body.input), before: [] };
  const conversation = [...turn.before, ...turn.ownInput.map(({ id: _id, ...item }) => item)];
  const saved = await responseRepository().save(workspaceId, { response, inputItems: turn.ownInput, conversation });
  if (Array.isArray(response.output)) await responseRepository().saveItems(workspaceId, response.output.filter((item): item is Json => typeof item === 'object' && item !== null));
  if (!saved) log.warn('response too large to store; previous_response_id cannot continue it', { response_id: response.id });
}

/** `item_reference` input items (earlier output sent back by id) → the stored items themselves, from this workspace. */
async function resolveItemReferences(items: Json[], workspaceId: string): Promise<Json[]> {
  const ids = items.filter((item) => item.type === 'item_reference').map((item) => String(item.id));
  if (ids.length === 0) return items;
  // Ids gw hands out are short; a longer one cannot exist and, used as a store key, would fail as a 500.
  const tooLong = items.findIndex((item) => item.type === 'item_reference' && String(item.id).length > MAX_ID_CHARS);
  if (tooLong >= 0) throw badRequest('invalid_request', `input.${tooLong}.id: an item id is at most ${MAX_ID_CHARS} characters`, `input.${tooLong}.id`);
  const found = await responseRepository().getItems(workspaceId, ids);
  return items.map((item, index) => {
    if (item.type !== 'item_reference') return item;
    const stored = found.get(String(item.id));
    if (!stored) throw badRequest('item_not_found', `Item with id '${String(item.id)}' not found.`, `input.${index}.id`);
    return replayable([stored])[0] ?? stored;
  });
}

/**
 * Output items as input for the next turn: ids and statuses belong to the provider that made them, and a
 * reasoning item without its encrypted content cannot be sent back to any model.
 */
function replayable(output: unknown): Json[] {
  if (!Array.isArray(output)) return [];
  return output
    .filter((item): item is Json => typeof item === 'object' && item !== null)
    .filter((item) => item.type !== 'reasoning' || typeof item.encrypted_content === 'string')
    .map(({ id, status: _status, ...item }) => (item.type === 'reasoning' ? { id, ...item } : item));
}
