import { Field } from './components';

/** The time presets of logs, traces and analytics; `custom` uses the view's own `from` and `to`. */
export const PRESETS = [
  ['15m', '15 min', 15 * 60_000],
  ['1h', '1 h', 3_600_000],
  ['24h', '24 h', 86_400_000],
  ['7d', '7 d', 7 * 86_400_000],
  ['30d', '30 d', 30 * 86_400_000],
] as const;

export interface RangeState {
  range?: string;
  from?: string;
  to?: string;
}

/**
 * The ISO bounds a view's range stands for, computed when the view loads (a preset slides with time, so a live
 * refresh of "last 15 min" keeps showing the last 15 minutes). An unknown or absent preset means no bound.
 */
export function rangeBounds(state: RangeState, now = Date.now()): { from?: string; to?: string } {
  const preset = PRESETS.find(([id]) => id === state.range);
  if (preset) return { from: new Date(now - preset[2]).toISOString() };
  if (state.range === 'custom') return { from: isoOrUndefined(state.from), to: isoOrUndefined(state.to) };
  return {};
}

function isoOrUndefined(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** `datetime-local` wants local time without a zone. */
const toLocalInput = (iso: string | undefined) => {
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** Preset buttons (one pressed at a time) and, for Custom, two local-time boxes. */
export function TimeRangePicker({ value, onChange, allowAll = true }: { value: RangeState; onChange: (next: RangeState) => void; allowAll?: boolean }) {
  const choose = (range: string | undefined) => onChange(range === 'custom' ? { range, from: value.from, to: value.to } : { range });
  return (
    <div class="time-range" role="group" aria-label="Time range">
      {allowAll ? (
        <button type="button" aria-pressed={!value.range} onClick={() => choose(undefined)}>
          All
        </button>
      ) : null}
      {PRESETS.map(([id, label]) => (
        <button type="button" aria-pressed={value.range === id} aria-label={`Last ${label}`} onClick={() => choose(id)}>
          {label}
        </button>
      ))}
      <button type="button" aria-pressed={value.range === 'custom'} onClick={() => choose('custom')}>
        Custom
      </button>
      {value.range === 'custom' ? (
        <>
          <Field label="from">
            <input type="datetime-local" value={toLocalInput(value.from)} onChange={(event) => onChange({ ...value, from: isoFromLocal((event.target as HTMLInputElement).value) })} />
          </Field>
          <Field label="to">
            <input type="datetime-local" value={toLocalInput(value.to)} onChange={(event) => onChange({ ...value, to: isoFromLocal((event.target as HTMLInputElement).value) })} />
          </Field>
        </>
      ) : null}
    </div>
  );
}

const isoFromLocal = (local: string) => (local ? new Date(local).toISOString() : undefined);
