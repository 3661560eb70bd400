/**
 * Copies the OpenAI parameters a provider takes under its own names (`top_p` → `p`, `max_completion_tokens` →
 * `max_tokens`) from the request to the provider's body, skipping those the request leaves unset or null.
 */
export function copyRenamedParams(source: Record<string, unknown>, target: Record<string, unknown>, names: Readonly<Record<string, string>>): void {
  for (const [from, to] of Object.entries(names)) if (source[from] !== undefined && source[from] !== null) target[to] = source[from];
}
