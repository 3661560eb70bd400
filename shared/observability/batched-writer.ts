import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../store/dynamo-client.js';
import { captureFunctionContext } from '../store/recording/aws-operation-recorder.js';
import { onDrain } from './background.js';

const MAX_BATCH = 25;
const MAX_UNPROCESSED_ROUNDS = 5;

interface Pending {
  item: Record<string, unknown>;
  done: (error?: unknown) => void;
  /** Test-only attribution: sends as the function that queued the item, whoever flushes (no-op when deployed). */
  sendAs: <R>(work: () => R) => R;
}

/**
 * Write-behind for append-only records (request logs): items wait up to `delayMs` and go out as one
 * BatchWriteItem of up to 25. Under load that is one table call for many requests; a Lambda drains it when
 * the response is written (see background.ts), so nothing is lost when the sandbox freezes.
 */
export class BatchedTableWriter {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly table: () => string,
    private readonly delayMs = 20,
  ) {
    onDrain(() => this.flush());
  }

  put(item: Record<string, unknown>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, done: (error) => (error ? reject(error) : resolve()), sendAs: captureFunctionContext() });
      if (this.queue.length >= MAX_BATCH) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
    });
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await batch[0].sendAs(() => this.write(batch.map((entry) => entry.item)));
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.done(error);
      }
    }
  }

  private async write(items: Array<Record<string, unknown>>): Promise<void> {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`${requests.length} records stayed unprocessed after ${round} rounds`);
      const result = await dynamoDocumentClient().send(new BatchWriteCommand({ RequestItems: { [this.table()]: requests } }));
      requests = (result.UnprocessedItems?.[this.table()] ?? []) as typeof requests;
      if (requests.length > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
    }
  }
}
