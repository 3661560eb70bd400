import type { PeriodicReset, PolicyUnit } from '../../store/policy-repository.js';

/** A span of time usage is counted in. `id` goes into the counter key; `end` is exclusive (epoch ms). */
export interface CountingWindow {
  id: string;
  start: number;
  end: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const UNIT_MS: Record<PolicyUnit, number> = { rpm: MINUTE_MS, rph: HOUR_MS, rpd: DAY_MS };

export const UNIT_LABELS: Record<PolicyUnit, string> = { rpm: 'minute', rph: 'hour', rpd: 'day' };

/**
 * The fixed window of a rate unit that contains `now`, aligned to UTC (the epoch starts at UTC midnight, so
 * whole multiples of a minute, hour or day are UTC boundaries). Fixed windows: a client may use a full window's
 * limit just before a boundary and again just after it.
 */
export function rateWindow(unit: PolicyUnit, now: number): CountingWindow {
  const length = UNIT_MS[unit];
  const start = Math.floor(now / length) * length;
  return { id: `${unit}${start}`, start, end: start + length };
}

/**
 * The rate window right after the one `windowId` names (an id `rateWindow` made), or undefined for any other id (a
 * usage limit's period): what a lease of the next window is taken on before the current one ends.
 */
export function nextRateWindow(windowId: string): CountingWindow | undefined {
  const match = /^(rpm|rph|rpd)(\d+)$/.exec(windowId);
  if (!match) return undefined;
  const unit = match[1] as PolicyUnit;
  const start = Number(match[2]) + UNIT_MS[unit];
  return { id: `${unit}${start}`, start, end: start + UNIT_MS[unit] };
}

/**
 * The period of a usage limit that contains `now`: since ever (`none`), since Monday 00:00 UTC (`weekly`), or
 * since the 1st of the month 00:00 UTC (`monthly`). A new period is a new counter: usage "resets" by itself.
 */
export function resetPeriod(reset: PeriodicReset, now: number): CountingWindow {
  if (reset === 'none') return { id: 'all', start: 0, end: Number.POSITIVE_INFINITY };
  const date = new Date(now);
  if (reset === 'monthly') {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    return { id: `m${start}`, start, end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
  }
  const daysSinceMonday = (date.getUTCDay() + 6) % 7;
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - daysSinceMonday);
  return { id: `w${start}`, start, end: start + 7 * DAY_MS };
}

/** Whole seconds from `now` until `end`, at least 1 (what `retry-after` says). */
export function secondsUntil(end: number, now: number): number {
  return Math.max(1, Math.ceil((end - now) / 1000));
}
