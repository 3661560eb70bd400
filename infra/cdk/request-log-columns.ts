import { TABLE_COLUMNS } from '../../shared/observability/engine/columns.js';

/** The column list the Glue tables (and so the Parquet files) are built from: the one list every engine uses. */
export const REQUEST_LOG_COLUMNS = TABLE_COLUMNS;
