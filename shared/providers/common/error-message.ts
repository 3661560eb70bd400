import { isRecord, stringField } from './json-guards.js';

/**
 * The message of a provider's error answer: the first of `fields` that is a string in its JSON body, else the body
 * as text (500 characters at most), else "<provider> answered with HTTP <status>", so a refusal always says something.
 */
export function providerErrorMessage(providerName: string, status: number, body: unknown, fields: readonly string[]): string {
  const record = isRecord(body) ? body : {};
  for (const field of fields) {
    const value = stringField(record, field);
    if (value !== undefined) return value;
  }
  return (typeof body === 'string' && body.trim().slice(0, 500)) || `${providerName} answered with HTTP ${status}`;
}
