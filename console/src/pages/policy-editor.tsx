import { useEffect, useState } from 'preact/hooks';
import { segment, type Api, type Json } from '../api';
import { ErrorBanner, Field } from '../components';
import type { ZodType } from 'zod';
import {
  createRateLimitPolicySchema,
  createUsageLimitPolicySchema,
  updateRateLimitPolicySchema,
  updateUsageLimitPolicySchema,
} from '../../../shared/control-plane/policies/schemas';
import { firstIssue } from '../../../shared/http/validation-issue';

export type PolicyKind = 'rate-limits' | 'usage-limits';

const EXAMPLES: Record<PolicyKind, Json> = {
  'rate-limits': { name: 'per-user requests', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpm', value: 60 },
  'usage-limits': { name: 'monthly budget', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 100000, credit_limit: { type: 'cost', value: 50 }, periodic_reset: 'monthly' },
};
const UPDATABLE = ['name', 'conditions', 'group_by', 'type', 'unit', 'value', 'enforcement', 'credit_limit', 'periodic_reset'];

/** The fields of a stored policy that PUT may change, as the editor's text. */
function editableOf(policy: Json, kind: PolicyKind): Json {
  const fields = kind === 'usage-limits' ? UPDATABLE : UPDATABLE.slice(0, 7);
  return Object.fromEntries(fields.filter((name) => policy[name] !== undefined && policy[name] !== null).map((name) => [name, policy[name]]));
}

/**
 * The API's own schemas (the ones POST and PUT /v1/policies/* validate with), bundled with this page: a body they
 * refuse is never sent, and the message is the one gw's 400 would carry (the same first-issue wording).
 */
const SCHEMAS: Record<PolicyKind, { create: ZodType; update: ZodType }> = {
  'rate-limits': { create: createRateLimitPolicySchema, update: updateRateLimitPolicySchema },
  'usage-limits': { create: createUsageLimitPolicySchema, update: updateUsageLimitPolicySchema },
};

function check(kind: PolicyKind, editing: boolean, source: string): { body?: Json; problem?: string } {
  let body: unknown;
  try {
    body = JSON.parse(source);
  } catch (error) {
    return { problem: `not valid JSON (${(error as Error).message})` };
  }
  const result = SCHEMAS[kind][editing ? 'update' : 'create'].safeParse(body);
  // What is sent is what was written: gw fills its own defaults (periodic_reset) as it always does.
  return result.success ? { body: body as Json } : { problem: firstIssue(result.error).message };
}

/**
 * Creates a policy of either kind, or edits the one opened from a list: its JSON, checked with the schema the API
 * uses before it is sent (the message is the API's own), then POST or PUT. A body the schema refuses cannot be sent.
 */
export function PolicyEditor({ api, opened, disabled, reason, onSaved, onClose }: { api: Api; opened?: { kind: PolicyKind; policy: Json }; disabled: boolean; reason?: string; onSaved: () => void; onClose: () => void }) {
  const [kind, setKind] = useState<PolicyKind>(opened?.kind ?? 'usage-limits');
  const [source, setSource] = useState('');
  const [error, setError] = useState<Error>();
  const [saved, setSaved] = useState<string>();
  useEffect(() => {
    setKind(opened?.kind ?? kind);
    setSource(JSON.stringify(opened ? editableOf(opened.policy, opened.kind) : EXAMPLES[kind], null, 2));
    setError(undefined);
    setSaved(undefined);
  }, [opened]);
  const editing = opened !== undefined;
  const verdict = check(kind, editing, source);
  return (
    <form
      class="editor"
      aria-label={editing ? `Edit policy ${String(opened.policy.name ?? opened.policy.id)}` : 'Create a policy'}
      onSubmit={(event) => {
        event.preventDefault();
        setError(undefined);
        if (!verdict.body) return;
        const sent = editing ? api.put(`/v1/policies/${kind}/${segment(String(opened.policy.id))}`, verdict.body) : api.post(`/v1/policies/${kind}`, verdict.body);
        sent.then(() => (setSaved(editing ? 'Saved' : 'Created'), onSaved()), setError);
      }}
    >
      <h3>{editing ? `Edit ${String(opened.policy.name ?? opened.policy.id)}` : 'Create a policy'}</h3>
      {editing ? null : (
        <Field label="kind">
          <select
            name="policy_kind"
            value={kind}
            disabled={disabled}
            onChange={(event) => {
              const next = (event.target as HTMLSelectElement).value as PolicyKind;
              setKind(next);
              setSource(JSON.stringify(EXAMPLES[next], null, 2));
            }}
          >
            <option value="usage-limits">usage limit (a budget: cost or tokens)</option>
            <option value="rate-limits">rate limit (requests or tokens per minute, hour, day)</option>
          </select>
        </Field>
      )}
      <Field label="policy (JSON)">
        <textarea name="policy_json" rows={12} value={source} disabled={disabled} onInput={(event) => (setSaved(undefined), setSource((event.target as HTMLTextAreaElement).value))} />
      </Field>
      <p class={verdict.problem ? 'invalid' : 'valid'} role="status" data-testid="policy-check">
        {verdict.problem ?? 'Valid policy.'}
      </p>
      <ErrorBanner error={error} />
      {saved ? <p role="status">{saved}</p> : null}
      <span class="actions">
        <button type="submit" disabled={disabled || !verdict.body} title={disabled ? reason : undefined}>
          {editing ? 'Save policy' : 'Create policy'}
        </button>
        {editing ? (
          <button type="button" onClick={onClose}>
            New policy instead
          </button>
        ) : null}
      </span>
    </form>
  );
}
