import { useEffect, useState } from 'preact/hooks';
import { segment, type Api, type Json } from '../api';
import { ErrorBanner, Field } from '../components';

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
 * The body checked before it is sent: JSON, an object, and the fields a kind needs. The full rules are the API's
 * (shared/control-plane/policies/schemas.ts imports server modules, so the browser cannot load them yet): gw's 400
 * names the field, and the editor shows that message.
 */
function check(kind: PolicyKind, editing: boolean, source: string): { body?: Json; problem?: string } {
  let body: unknown;
  try {
    body = JSON.parse(source);
  } catch (error) {
    return { problem: `not valid JSON (${(error as Error).message})` };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { problem: 'body: must be a JSON object' };
  const fields = body as Json;
  const required = editing ? [] : ['conditions', 'group_by', 'type', 'unit', 'value', ...(kind === 'usage-limits' ? ['credit_limit'] : [])];
  const missing = required.find((name) => fields[name] === undefined);
  if (missing) return { problem: `${missing}: is required` };
  if (fields.value !== undefined && (typeof fields.value !== 'number' || fields.value <= 0)) return { problem: 'value: must be a number greater than 0' };
  if (editing && Object.keys(fields).length === 0) return { problem: 'body: must change at least one field' };
  return { body: fields };
}

/**
 * Creates a policy of either kind, or edits the one opened from a list: its JSON, checked with the schema the API
 * uses before it is sent (the message is the API's own), then POST or PUT.
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
