import type { DuckDBAppender, DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { EngineTable } from '../types.js';
import { BatchColumns, type Batch, type DuckDbValues } from './batch-columns.js';
import type { JournalPosition } from './journal.js';
import type { OpenAnswerChanges } from './open-answers.js';

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2_048;

/** The one-row table holding how far the journal has been written: committed with the rows it covers. */
export const POSITION_TABLE_SQL = 'CREATE TABLE IF NOT EXISTS gw_journal_position (segment BIGINT, "offset" BIGINT)';

/**
 * Writes a batch's rows and the journal position after them in one transaction (issue #42): either both are
 * committed or neither, so a crash between a commit and deleting journal files never writes a record twice, and a
 * failed commit (a full disk) leaves the journal to be read again. Appenders are kept per table across batches
 * (creating one per flush cost more than its rows) and made anew after a failure.
 */
export class TransactionalWriter {
  private readonly appenders: Partial<Record<EngineTable, DuckDBAppender>> = {};
  private readonly columns: BatchColumns;
  /**
   * Once a committed pass has left the position's one row, later passes update it with one prepared statement
   * instead of a DELETE and an INSERT parsed and planned each time (issue #48: a pass's fixed cost is paid every
   * 500 ms whatever its size). Forgotten after a failure, which starts again from DELETE and INSERT.
   */
  private positionUpdate: DuckDBPreparedStatement | undefined;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly values: DuckDbValues,
  ) {
    this.columns = new BatchColumns(values);
  }

  /** The position the last run committed (a fresh database starts at the journal's first segment). */
  async position(): Promise<JournalPosition | undefined> {
    const rows = (await this.connection.runAndReadAll('SELECT segment, "offset" FROM gw_journal_position LIMIT 1')).getRowObjectsJS();
    return rows[0] ? { segment: Number(rows[0].segment), offset: Number(rows[0].offset) } : undefined;
  }

  /** The answers marked but not yet recorded that the last run left (open-answers.ts). */
  async openAnswers(): Promise<Array<{ id: string; marker: string }>> {
    return (await this.connection.runAndReadAll('SELECT id, marker FROM gw_open_answers')).getRowObjectsJS() as Array<{ id: string; marker: string }>;
  }

  async write(batch: Batch, position: JournalPosition, answers: OpenAnswerChanges = { insert: [], remove: [] }): Promise<void> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      for (const table of ['requests', 'spans'] as const) await this.append(table, this.columns.of(table, batch));
      // Few rows per pass (answers whose record is still on its way), so plain statements serve.
      for (const id of answers.remove) await this.connection.run('DELETE FROM gw_open_answers WHERE id = ?', [id]);
      for (const marker of answers.insert) await this.connection.run('INSERT INTO gw_open_answers VALUES (?, ?)', [marker.id, JSON.stringify(marker)]);
      const update = this.positionUpdate;
      if (update) {
        update.bind([position.segment, position.offset]);
        await update.run();
      } else {
        await this.connection.run('DELETE FROM gw_journal_position');
        await this.connection.run('INSERT INTO gw_journal_position VALUES (?, ?)', [position.segment, position.offset]);
      }
      await this.connection.run('COMMIT');
    } catch (error) {
      await this.connection.run('ROLLBACK').catch(() => undefined);
      this.dropAppenders();
      this.positionUpdate = undefined;
      throw error;
    }
    // The table now holds exactly one row: from here on, updating it says the same. Never a failure of this write
    // (it is committed): without the statement the next pass deletes and inserts.
    this.positionUpdate ??= await this.connection.prepare('UPDATE gw_journal_position SET segment = $1, "offset" = $2').catch(() => undefined);
  }

  close(): void {
    this.dropAppenders();
  }

  private async append(table: EngineTable, columns: unknown[][]): Promise<void> {
    const rows = columns[0]?.length ?? 0;
    if (rows === 0) return;
    const appender = (this.appenders[table] ??= await this.connection.createAppender(table));
    for (let start = 0; start < rows; start += CHUNK_ROWS) {
      appender.appendDataChunk(this.values.chunk(table, rows <= CHUNK_ROWS ? columns : columns.map((values) => values.slice(start, start + CHUNK_ROWS))));
    }
    appender.flushSync();
  }

  private dropAppenders(): void {
    for (const table of Object.keys(this.appenders) as EngineTable[]) {
      try {
        this.appenders[table]?.closeSync();
      } catch {
        // Already broken: nothing more to release.
      }
      this.appenders[table] = undefined;
    }
  }
}
