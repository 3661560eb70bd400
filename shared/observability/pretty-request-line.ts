/**
 * One request as a person at a terminal reads it, like the development servers people know:
 *
 *   19:45:12  POST /v1/chat/completions  200  openai/gpt-4o-mini  412 ms  25→15 tok  $0.000123
 *   19:45:13  POST /v1/messages          429  rate_limit_exceeded  3 ms
 *
 * Local time of day, method and path, status (and gw's error code when it failed), the provider and model that
 * answered, latency, prompt→completion tokens and cost when known. The JSON line holds the rest (trace id, …).
 */
export function formatPrettyRequestLine(now: number, fields: Record<string, unknown>): string {
  const parts = [clock(now), `${text(fields.method, 'POST')} ${text(fields.path, `/${text(fields.endpoint, '?')}`)}`.padEnd(32), String(fields.status ?? '?')];
  if (typeof fields.error_code === 'string' && fields.error_code !== '') parts.push(fields.error_code);
  if (typeof fields.provider === 'string') parts.push(typeof fields.model === 'string' ? `${fields.provider}/${fields.model}` : fields.provider);
  if (typeof fields.latency_ms === 'number') parts.push(`${Math.round(fields.latency_ms)} ms`);
  if (typeof fields.prompt_tokens === 'number' || typeof fields.completion_tokens === 'number') {
    parts.push(`${num(fields.prompt_tokens)}→${num(fields.completion_tokens)} tok`);
  }
  if (typeof fields.cost_usd === 'number' && fields.cost_usd > 0) parts.push(`$${fields.cost_usd.toPrecision(3)}`);
  return `${parts.join('  ')}\n`;
}

function clock(now: number): string {
  const date = new Date(now);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((value) => String(value).padStart(2, '0')).join(':');
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function num(value: unknown): string {
  return typeof value === 'number' ? String(value) : '?';
}
