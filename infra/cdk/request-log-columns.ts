/**
 * The column list the Glue tables (and so the Parquet files) are built from. PROVISIONAL: it re-exports the AWS
 * side's test fixture until shared/observability/engine/columns.ts (h/logs) lands; the integrator points this one
 * line at that list (adapted to `EngineColumnsByTable`), and nothing else in infra/ changes.
 */
export { PROVISIONAL_ENGINE_COLUMNS as REQUEST_LOG_COLUMNS } from '../../test/infra/fixtures/request-log-columns.js';
