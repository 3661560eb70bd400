import { useEffect, useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { ErrorBanner, Field, Section, TextInput, text, useLoad, when } from '../components';
import { useCapability } from '../resources/capabilities';
import { workspaceUpdateSchema } from '../../../shared/control-plane/workspaces/schemas';
import { firstIssue } from '../../../shared/http/validation-issue';

interface Form {
  credit_limit: string;
  periodic_reset: string;
  default_guardrails: string;
  membersViewAnalytics: boolean;
  managersViewAnalytics: boolean;
  log_request_bodies: boolean;
  max_api_keys: string;
  default_expiry_days: string;
  max_expiry_days: string;
}

/**
 * A number box's value as the API takes it: empty is null (no limit), a number is a number, and anything else stays
 * text, so the schema refuses it (Number("abc") is NaN, which JSON sends as null: "abc" once cleared the setting).
 */
const number = (value: string): number | string | null => (value.trim() === '' ? null : /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value.trim());

/** The body checked with the API's own schemas before it is sent: the first problem, named by its field. */
function problemOf(body: Json): string | undefined {
  const result = workspaceUpdateSchema.safeParse(body);
  if (result.success) return undefined;
  return firstIssue(result.error).message;
}
const field = (value: unknown) => (value === null || value === undefined ? '' : String(value));

function formOf(workspace: Json): Form {
  const budget = (workspace.budget ?? {}) as Json;
  const settings = (workspace.settings ?? {}) as Json;
  const keys = (workspace.api_key_settings ?? {}) as Json;
  return {
    credit_limit: field(budget.credit_limit),
    periodic_reset: String(budget.periodic_reset ?? 'none'),
    default_guardrails: ((workspace.default_guardrails as string[] | undefined) ?? []).join(', '),
    membersViewAnalytics: settings.membersViewAnalytics !== false,
    managersViewAnalytics: settings.managersViewAnalytics !== false,
    log_request_bodies: settings.log_request_bodies !== false,
    max_api_keys: field(keys.max_api_keys),
    default_expiry_days: field(keys.default_expiry_days),
    max_expiry_days: field(keys.max_expiry_days),
  };
}

/** The workspace's settings: budget and its reset, default guardrails, analytics visibility and key policies. */
export function WorkspacePage({ api }: { api: Api }) {
  const workspaces = useLoad(() => api.get<Page>('/v1/workspaces', { limit: '1' }), []);
  const workspace = workspaces.data?.data[0];
  const write = useCapability(api, { scope: 'workspaces:write' });
  const [form, setForm] = useState<Form>();
  const [error, setError] = useState<Error>();
  const [saved, setSaved] = useState(false);
  useEffect(() => workspace && setForm(formOf(workspace)), [workspace]);
  if (!workspace || !form)
    return (
      <Section title="Workspace settings">
        <ErrorBanner error={workspaces.error} onRetry={workspaces.reload} />
        {workspaces.error ? null : (
          <p class="muted" role="status">
            {workspaces.loading ? 'Loading…' : 'No workspace visible to this key.'}
          </p>
        )}
      </Section>
    );
  const budget = (workspace.budget ?? {}) as Json;
  const disabled = write.can !== 'yes';
  const set = (change: Partial<Form>) => (setSaved(false), setForm({ ...form, ...change }));
  const check = (name: 'membersViewAnalytics' | 'managersViewAnalytics' | 'log_request_bodies', label: string) => (
    <label class="inline">
      <input type="checkbox" name={name} checked={form[name]} disabled={disabled} onChange={(event) => set({ [name]: (event.target as HTMLInputElement).checked })} />
      {label}
    </label>
  );
  return (
    <Section title={`Workspace settings: ${text(workspace.name)}`}>
      <dl class="facts" aria-label="Budget status">
        <dt>Spent since reset</dt>
        <dd data-testid="budget-usage">${Number(budget.current_usage ?? 0).toFixed(4)}</dd>
        <dt>Status</dt>
        <dd>{text(budget.status)}</dd>
        <dt>Last reset</dt>
        <dd>{when(budget.last_reset_at)}</dd>
        <dt>Next reset</dt>
        <dd>{when(budget.next_reset_at)}</dd>
      </dl>
      {write.can === 'no' ? (
        <p class="muted" data-testid="write-disabled">
          Your key can't change this workspace: {write.reason}
        </p>
      ) : null}
      <ErrorBanner error={error} />
      {saved ? <p role="status">Saved</p> : null}
      <form
        class="editor"
        aria-label="Workspace settings"
        onSubmit={(event) => {
          event.preventDefault();
          setError(undefined);
          // Only the sections that changed: some (key policy, budget) are organisation-admin settings a workspace key may not send.
          const before = formOf(workspace);
          const changed = (...names: (keyof Form)[]) => names.some((name) => form[name] !== before[name]);
          const body: Json = {};
          if (changed('credit_limit', 'periodic_reset')) body.budget = { credit_limit: number(form.credit_limit), periodic_reset: form.periodic_reset };
          if (changed('default_guardrails')) body.default_guardrails = form.default_guardrails.split(/[\s,]+/).filter(Boolean);
          if (changed('membersViewAnalytics', 'managersViewAnalytics', 'log_request_bodies')) body.settings = { membersViewAnalytics: form.membersViewAnalytics, managersViewAnalytics: form.managersViewAnalytics, log_request_bodies: form.log_request_bodies };
          if (changed('max_api_keys', 'default_expiry_days', 'max_expiry_days')) body.api_key_settings = { max_api_keys: number(form.max_api_keys), default_expiry_days: number(form.default_expiry_days), max_expiry_days: number(form.max_expiry_days) };
          if (Object.keys(body).length === 0) return setSaved(true);
          const problem = problemOf(body);
          if (problem) return setError(new Error(`Not saved: ${problem}`));
          api.patch(`/v1/workspaces/${segment(String(workspace.id))}`, body).then(() => (setSaved(true), workspaces.reload()), setError);
        }}
      >
        <fieldset disabled={disabled}>
          <legend>Budget</legend>
          <div class="filters">
            <TextInput label="credit limit (USD, empty for none)" name="credit_limit" value={form.credit_limit} onInput={(credit_limit) => set({ credit_limit })} />
            <Field label="periodic reset">
              <select name="periodic_reset" value={form.periodic_reset} onChange={(event) => set({ periodic_reset: (event.target as HTMLSelectElement).value })}>
                <option value="none">none</option>
                <option value="weekly">weekly (Monday 00:00 UTC)</option>
                <option value="monthly">monthly (1st, 00:00 UTC)</option>
              </select>
            </Field>
          </div>
        </fieldset>
        <fieldset disabled={disabled}>
          <legend>Guardrails and analytics</legend>
          <TextInput label="default guardrails (grd-… ids)" name="default_guardrails" value={form.default_guardrails} onInput={(default_guardrails) => set({ default_guardrails })} />
          <div class="filters">
            {check('membersViewAnalytics', 'members may view analytics')}
            {check('managersViewAnalytics', 'managers may view analytics')}
            {check('log_request_bodies', 'keep request bodies in logs')}
          </div>
        </fieldset>
        <fieldset disabled={disabled}>
          <legend>API key policy</legend>
          <div class="filters">
            <TextInput label="max active keys" name="max_api_keys" value={form.max_api_keys} onInput={(max_api_keys) => set({ max_api_keys })} />
            <TextInput label="default expiry (days)" name="default_expiry_days" value={form.default_expiry_days} onInput={(default_expiry_days) => set({ default_expiry_days })} />
            <TextInput label="max expiry (days)" name="max_expiry_days" value={form.max_expiry_days} onInput={(max_expiry_days) => set({ max_expiry_days })} />
          </div>
        </fieldset>
        <button type="submit" disabled={disabled} title={disabled ? write.reason : undefined}>
          Save settings
        </button>
      </form>
    </Section>
  );
}
