import { badRequest } from '../../http/errors.js';
import type { TargetSettings } from '../types.js';
import type { AccountAddress, OpenAICompatibleProvider } from './catalog.js';

/** The header's value, checked: undefined when absent, a 400 when it does not name an account of the provider. */
export function readAccountHeader(address: AccountAddress, value: string | undefined): string | undefined {
  const trimmed = value?.trim().toLowerCase();
  if (!trimmed) return undefined;
  if (!address.pattern.test(trimmed)) throw badRequest('invalid_header', `${address.header} must be ${address.describe}`, address.header);
  return trimmed;
}

/** The base URL a row's call goes to: the custom host, the account's address, or the row's fixed host. */
export function rowBaseUrl(row: OpenAICompatibleProvider, target: TargetSettings): string {
  if (target.customHost) return target.customHost;
  if (row.account) {
    const account = target.accounts?.[row.account.header];
    if (!account) throw badRequest('missing_account', `Provider '${row.slug}' needs ${row.account.header} (${row.account.describe}), or x-gw-custom-host`, row.account.header);
    return row.account.baseUrl(account);
  }
  if (!row.baseUrl) {
    throw badRequest('custom_host_required', `Provider '${row.slug}' has no public endpoint: send x-gw-custom-host with its base URL`, 'x-gw-custom-host');
  }
  return row.baseUrl;
}
