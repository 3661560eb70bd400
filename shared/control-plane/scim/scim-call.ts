import type { z } from 'zod';
import type { Principal } from '../../auth/principal.js';
import type { NeutralRequest } from '../../http/types.js';
import { ScimRepository, type ScimGroupRecord } from '../../store/scim-repository.js';
import { jsonNestingDepth, MAX_JSON_NESTING } from '../../http/json-nesting.js';
import { unstorableNumberMessage, unstorableNumberPath } from '../../http/json-numbers.js';
import { ScimError } from './protocol.js';

const MAX_BODY_BYTES = 1024 * 1024;

/** One SCIM request: the caller, the request, its JSON body and (read once) the organisation's SCIM groups. */
export interface ScimCall {
  principal: Principal;
  request: NeutralRequest;
  /**
   * The one workspace a workspace API key with the `scim` scope acts on; undefined for an organisation admin key.
   * Such a key sees and changes only its own workspace's group and the users of that workspace (or that it
   * provisioned), and never creates or adopts another workspace.
   */
  confinedTo: string | undefined;
  body<Schema extends z.ZodType>(schema?: Schema): Schema extends z.ZodType ? z.output<Schema> : unknown;
  groups(): Promise<Map<string, ScimGroupRecord>>;
}

export function scimCall(principal: Principal, request: NeutralRequest, repository = new ScimRepository()): ScimCall {
  let groups: Promise<Map<string, ScimGroupRecord>> | undefined;
  const confinedTo = principal.kind === 'admin' ? undefined : principal.workspaceId;
  return {
    principal,
    request,
    confinedTo,
    body(schema) {
      if (request.body.length > MAX_BODY_BYTES) throw new ScimError(413, 'tooMany', `The request body must be at most ${MAX_BODY_BYTES} bytes`, 'body_too_large');
      const text = request.body.toString('utf8');
      // Like every JSON parser of gw (shared/http/json-nesting.ts), in SCIM's error schema.
      if (jsonNestingDepth(text) > MAX_JSON_NESTING) throw new ScimError(400, 'invalidSyntax', `The request body nests JSON deeper than ${MAX_JSON_NESTING} levels`, 'json_too_deep');
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ScimError(400, 'invalidSyntax', 'The request body is not valid JSON', 'invalid_json');
      }
      // Like every control-plane body (shared/http/json-numbers.ts): a number the store cannot hold is a 400, not a 500.
      const unstorable = unstorableNumberPath(raw);
      if (unstorable !== undefined) throw new ScimError(400, 'invalidValue', unstorableNumberMessage(unstorable), 'invalid_number');
      if (!schema) return raw as never;
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ScimError(400, 'invalidSyntax', `${issue.path.join('.') || 'body'}: ${issue.message}`);
      }
      return parsed.data as never;
    },
    groups() {
      groups ??= repository
        .listGroups(principal.organisationId)
        .then((records) => new Map(records.filter((record) => confinedTo === undefined || record.workspace_id === confinedTo).map((record) => [record.workspace_id, record])));
      return groups;
    },
  };
}
