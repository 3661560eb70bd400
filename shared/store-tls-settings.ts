import { optionalOneOfAnyCase, optionalText } from './settings-fields.js';

// The settings half of shared/store/store-tls.ts: settings sit below the store, so their readers live here.

export const DB_SSL_MODES = ['DISABLED', 'PREFERRED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY', 'AWS', 'AZURE', 'GCP'] as const;
export type DbSslMode = (typeof DB_SSL_MODES)[number];

/** The settings entries (shared/settings.ts spreads them into its readers). */
export const storeTlsSettingReaders = {
  DB_SSL: optionalOneOfAnyCase(DB_SSL_MODES),
  DB_SSL_CA: optionalText(),
  DB_SSL_CERT: optionalText(),
  DB_SSL_KEY: optionalText(),
};
