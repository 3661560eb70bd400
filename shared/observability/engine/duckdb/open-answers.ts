import type { AnswerMarker } from '../../answer-marker.js';

/** The table of answers marked in the journal whose record has not been read yet: committed with the rows. */
export const OPEN_ANSWERS_TABLE_SQL = 'CREATE TABLE IF NOT EXISTS gw_open_answers (id VARCHAR, marker VARCHAR)';

/** What one write changes in `gw_open_answers`. */
export interface OpenAnswerChanges {
  insert: AnswerMarker[];
  remove: string[];
}

/**
 * Answers the journal has marked (issue #42, kill -9) whose record the worker has not read yet. Most records follow
 * their marker within the same pass and never reach the table; a marker still open when its pass commits is written
 * to `gw_open_answers` in that transaction (the journal position moves past it), and removed in the transaction that
 * writes its record. So at the next start the table (plus the journal's unread tail) holds exactly the answers whose
 * record the last run never wrote.
 */
export class OpenAnswers {
  private readonly persisted = new Map<string, AnswerMarker>();

  load(rows: Array<{ id: string; marker: string }>): void {
    for (const row of rows) this.persisted.set(row.id, JSON.parse(row.marker) as AnswerMarker);
  }

  /** A pass's changes, staged: applied with `commit` only once its transaction committed. */
  stage(): StagedAnswers {
    return new StagedAnswers(this.persisted);
  }

  commit(staged: StagedAnswers): void {
    for (const id of staged.closed) this.persisted.delete(id);
    for (const marker of staged.opened.values()) this.persisted.set(marker.id, marker);
  }

  /** Every open marker (at start: the last run's answers without a record). */
  all(): AnswerMarker[] {
    return [...this.persisted.values()];
  }

  get size(): number {
    return this.persisted.size;
  }
}

export class StagedAnswers {
  readonly opened = new Map<string, AnswerMarker>();
  readonly closed = new Set<string>();

  constructor(private readonly persisted: ReadonlyMap<string, AnswerMarker>) {}

  open(marker: AnswerMarker): void {
    this.opened.set(marker.id, marker);
  }

  /** The answer's record was read (or counted as dropped). */
  close(id: string): void {
    if (this.opened.delete(id)) return;
    if (this.persisted.has(id)) this.closed.add(id);
  }

  changes(): OpenAnswerChanges {
    return { insert: [...this.opened.values()], remove: [...this.closed] };
  }
}
