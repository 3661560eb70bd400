import type { HousekeepingPlan, HousekeepingReport } from './housekeeping.js';

/**
 * The IPC messages between the gw process and its store process (store-process.ts). JSON over the fork's
 * channel; requests carry an id so their replies can be matched.
 */
export type StoreRequest =
  | { id: number; op: 'housekeeping'; plan: HousekeepingPlan }
  | { id: number; op: 'pass' }
  | { id: number; op: 'stop-housekeeping' }
  | { id: number; op: 'memory' }
  | { id: number; op: 'close' };

export type StoreReply =
  | { type: 'ready'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'reply'; id: number; report?: HousekeepingReport; memory?: NodeJS.MemoryUsage; error?: string };

/** argv[2] of the store process: the data directory (or `:memory:`). */
export const STORE_PROCESS_FLAG = '--gw-store-process';
