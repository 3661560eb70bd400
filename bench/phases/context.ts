import type { BenchPlan } from '../options.js';
import type { ChildRegistry } from '../processes/children.js';
import type { GwProcess, MockProcess } from '../processes/launch.js';
import type { BenchEndpoints } from '../scenarios/requests.js';

/** What every phase that talks to the running processes gets. */
export interface PhaseContext {
  root: string;
  plan: BenchPlan;
  registry: ChildRegistry;
  mock: MockProcess;
  gw: GwProcess;
  /** The minimal reference proxy, when a phase that compares with it runs (its process, for CPU metering). */
  proxy?: { pid: number | undefined };
  /** Portkey's gateway, when it runs beside gw (its process, for CPU metering). */
  portkey?: { pid: number | undefined };
  endpoints: BenchEndpoints;
  /** Errors are collected, not thrown, so one failing part still leaves the rest of the run to report. */
  errors: string[];
}

export const REQUEST_TIMEOUT_MS = 10_000;
export const MAX_ERRORS_PER_SERIES = 10;
