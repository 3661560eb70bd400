import type { Worker } from 'node:worker_threads';
import { LogEngineUnavailableError } from './errors.js';
import type { FromWorker, ToWorker, WriterStatus } from './protocol.js';

type Request = ToWorker extends infer Message ? (Message extends { id: number } ? Omit<Message, 'id'> : never) : never;

/**
 * The main thread's end of the DuckDB worker: numbered requests and their replies, the worker's status after each
 * pass, and what happens when the worker dies (every call then fails with LogEngineUnavailableError: a 503).
 */
export class WorkerLink {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  /** Why the worker is gone, once it is. */
  dead: Error | undefined;
  status: WriterStatus | undefined;

  constructor(
    readonly worker: Worker,
    private readonly onStatus: (status: WriterStatus) => void,
    /** Called once when the worker dies (its supervisor starts another). */
    private readonly onDeath: (error: Error) => void = () => undefined,
  ) {
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'status') {
        this.status = message.status;
        this.onStatus(message.status);
      } else if (message.type === 'reply') {
        const call = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (!call) return;
        if (!message.error) call.resolve(message.value);
        else if (message.error.unavailable) call.reject(new LogEngineUnavailableError(`Request logs are unavailable: the log engine failed (${message.error.message.split('\n')[0]}); try again later`));
        else call.reject(new Error(message.error.message));
      }
    });
    worker.on('error', (error) => this.die(error));
    worker.on('exit', (code) => this.die(new Error(`the log engine's worker exited (${code})`)));
  }

  call<T>(request: Request): Promise<T> {
    if (this.dead) return Promise.reject(this.unavailable());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage(Object.assign({ id }, request));
    });
  }

  send(message: Exclude<ToWorker, { id: number }>): void {
    if (!this.dead) this.worker.postMessage(message);
  }

  private die(error: Error): void {
    if (this.dead) return;
    this.dead = error;
    for (const call of this.waiting.values()) call.reject(this.unavailable());
    this.waiting.clear();
    this.onDeath(error);
  }

  private unavailable(): LogEngineUnavailableError {
    return new LogEngineUnavailableError('Request logs are unavailable: the log engine stopped and is being restarted; try again shortly', undefined, { cause: this.dead });
  }
}
