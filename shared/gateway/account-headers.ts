import { readAccountHeader } from '../providers/openai-compatible/account-host.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from '../providers/openai-compatible/catalog.js';
import { WATSONX_ADDRESSES } from '../providers/watsonx/http.js';

// Native providers' coordinates (watsonx.ai's project, space and region) are read the same way.
export const ACCOUNT_ADDRESSES = [...OPENAI_COMPATIBLE_PROVIDERS.flatMap((row) => (row.account ? [row.account] : [])), ...WATSONX_ADDRESSES];

/**
 * The per-account headers of the OpenAI-compatible providers (`x-gw-cloudflare-account-id`, …), read once with the
 * other `x-gw-*` headers: a value that does not name an account of its provider is a 400 here, so no URL is ever
 * built from it.
 */
export function readAccountHeaders(headers: Record<string, string>): Record<string, string> {
  const accounts: Record<string, string> = {};
  for (const address of ACCOUNT_ADDRESSES) {
    const value = readAccountHeader(address, headers[address.header]);
    if (value !== undefined) accounts[address.header] = value;
  }
  return accounts;
}
