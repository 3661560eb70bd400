import { migrateAllConfigSecrets } from '../shared/control-plane/configs/migrate-all.js';

/**
 * `npx tsx scripts/migrate-config-secrets.ts`: moves every plaintext saved-config credential to the secret store.
 * Run it with the control plane's settings (GW_TABLE_MAIN, AWS_REGION, GW_SECRET_STORE, …) and credentials that
 * may scan the main table and write secrets under the stack's prefix. Safe to run twice.
 */
const { configs } = await migrateAllConfigSecrets();
console.log(`checked ${configs} saved config(s); plaintext credentials, if any, are now in the secret store`);
