import { randomBytes, randomUUID } from 'node:crypto';
import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, InitializeMiddleware } from '@smithy/types';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository, type ApiKeyRecord } from '../../../shared/store/api-key-repository.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import type { TestGateway } from '../../support/gateway.js';

const READ_COMMANDS = /^(GetItem|Get|Query|BatchGetItem|BatchGet)Command$/;
// A read the gate holds is let go after this long anyway, so a test that waits on a held read fails instead of hanging.
const SAFETY_RELEASE_MS = 5_000;

/**
 * A DynamoDB client middleware on the process's real client (the gateway runs in this process) that can hold
 * every read until released, or make every read fail. A response that arrives while reads are held did not wait
 * on any of them: that is how the tests tell "served from memory, refreshed in the background" from "waited".
 */
export interface StoreReadGate {
  /** From now on, reads wait until `release()`. */
  hold(): void;
  /** Lets every held read go and stops holding. */
  release(): void;
  /** From now on (until called with false), reads fail as if the store were down. */
  failReads(fail: boolean): void;
  /** Reads currently held. */
  held(): number;
  /** Reads let go by the safety timeout rather than by `release()` (a request waited on them). */
  releasedBySafetyTimeout(): number;
  /** Reads issued since the gate was installed (or `resetCount`). */
  reads(): number;
  resetCount(): void;
}

export function installStoreReadGate(): StoreReadGate {
  let holding = false;
  let failing = false;
  let reads = 0;
  let bySafety = 0;
  const waiting = new Set<() => void>();
  // The same view of the stack the operation recorder takes (shared/store/recording/sdk-recording-middleware.ts).
  const stack = dynamoDocumentClient().middlewareStack as unknown as {
    add(middleware: InitializeMiddleware<object, object>, options: { step: 'initialize'; name: string; override?: boolean }): void;
  };
  stack.add(
    (next: InitializeHandler<object, object>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<object>) => {
      if (!READ_COMMANDS.test(context.commandName ?? '')) return next(args);
      reads++;
      if (failing) throw new Error('store unavailable (test read gate)');
      if (holding) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            bySafety++;
            waiting.delete(resolve);
            resolve();
          }, SAFETY_RELEASE_MS);
          waiting.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'hotCacheReadGate', override: true },
  );
  return {
    hold: () => (holding = true),
    release: () => {
      holding = false;
      for (const open of [...waiting]) open();
      waiting.clear();
    },
    failReads: (fail) => (failing = fail),
    held: () => waiting.size,
    releasedBySafetyTimeout: () => bySafety,
    reads: () => reads,
    resetCount: () => (reads = 0),
  };
}

/** A second gateway key (a copy of the bootstrap admin key's rights) written straight to the store. */
export async function createKeyDirectly(gateway: TestGateway): Promise<{ raw: string; record: ApiKeyRecord }> {
  const repository = new ApiKeyRepository();
  const admin = (await repository.findByHash(hashApiKey(gateway.apiKey)))!;
  const raw = `gwk_${randomBytes(16).toString('hex')}`;
  const record: ApiKeyRecord = { ...admin, id: `key-${randomUUID()}`, key_hash: hashApiKey(raw), masked: `${raw.slice(0, 8)}…`, name: 'hot-cache test key' };
  await repository.create(record);
  return { raw, record };
}

/**
 * Revokes a key in the store only, as another process (another Lambda's control plane) would: this process's
 * forget-after-change hook does not run, so only the cache's own bound makes the change count here.
 */
export async function revokeElsewhere(record: ApiKeyRecord): Promise<void> {
  if (!(await new ApiKeyRepository().deactivateSecret(record.key_hash, 'revoked', new Date().toISOString()))) throw new Error('the key was not active');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
