import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { addressRefusal, type HostRules } from './custom-host.js';
import { merged } from '../merged.js';

/** A connect refused because the name resolved to an address the custom-host rules forbid. */
export class RefusedAddressError extends Error {}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The DNS lookup gw's outbound pools connect with: every address a name resolves to is checked against the rules
 * at connect time, and the checked address is the one connected to, so a name that resolves to a metadata or
 * (where refused) private address, or that rebinds after validation, is never connected to.
 */
export function checkedLookup(rules: () => HostRules, describe: (hostname: string, refusal: string) => string = (_hostname, refusal) => refusal) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, merged(options, { all: true as const }), (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const current = rules();
      const refused = list.map((entry) => addressRefusal(entry.address, current)).find(Boolean);
      if (refused) return callback(new RefusedAddressError(describe(hostname, refused)), '', 0);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
