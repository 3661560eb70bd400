import { keepAliveAgent, timedRequest, type ProbeRequest, type TimedResponse } from './http-probe.js';

/** One of the paths compared side by side (direct to the mock, through gw, through gw with a feature). */
export interface SequentialPath {
  name: string;
  /** The request, or a function giving the i-th request (for scenarios that vary it). */
  request: ProbeRequest | ((iteration: number) => ProbeRequest);
  /** Why a response is wrong, or undefined when it is right. A wrong response is an error, never a sample. */
  check(response: TimedResponse): string | undefined;
}

export interface SequentialOptions {
  warmup: number;
  count: number;
  /** The loop stops here even when `count` is not reached (the result then says `truncated`). */
  deadlineMs: number;
  timeoutMs: number;
  /** A path with this many errors stops the series: something is broken, more samples would not help. */
  maxErrors: number;
  /** Called between iterations; throws to abort (e.g. a child process died). */
  guard?: () => void;
}

export interface PathSamples {
  name: string;
  firstByteMs: number[];
  lastByteMs: number[];
  errors: number;
  errorSamples: string[];
}

export interface SequentialResult {
  paths: PathSamples[];
  iterations: number;
  truncated: boolean;
}

/**
 * Sequential requests, one at a time, each path on its own keep-alive connection. The paths are interleaved
 * and their order rotates every iteration, so drift (other load on the machine, GC, JIT) falls on all of them
 * alike and the difference between them stays meaningful.
 */
export async function runSequential(paths: readonly SequentialPath[], options: SequentialOptions): Promise<SequentialResult> {
  const agents = paths.map(() => keepAliveAgent());
  const samples: PathSamples[] = paths.map((path) => ({ name: path.name, firstByteMs: [], lastByteMs: [], errors: 0, errorSamples: [] }));
  const deadline = Date.now() + options.deadlineMs;
  let iterations = 0;
  let truncated = false;
  try {
    const total = options.warmup + options.count;
    for (let iteration = 0; iteration < total; iteration++) {
      if (Date.now() > deadline) {
        truncated = true;
        break;
      }
      options.guard?.();
      for (let step = 0; step < paths.length; step++) {
        const index = (iteration + step) % paths.length;
        const path = paths[index];
        const sample = samples[index];
        const probe = typeof path.request === 'function' ? path.request(iteration) : path.request;
        let problem: string | undefined;
        let response: TimedResponse | undefined;
        try {
          response = await timedRequest(agents[index], probe, options.timeoutMs);
          problem = path.check(response);
        } catch (error) {
          problem = (error as Error).message;
        }
        if (problem !== undefined || !response) {
          sample.errors++;
          if (sample.errorSamples.length < 3) sample.errorSamples.push(problem ?? 'no response');
          if (sample.errors >= options.maxErrors) throw new Error(`${path.name}: ${sample.errors} failed requests, e.g. ${sample.errorSamples.join(' | ')}`);
          continue;
        }
        if (iteration < options.warmup) continue;
        sample.firstByteMs.push(response.firstByteMs);
        sample.lastByteMs.push(response.lastByteMs);
      }
      if (iteration >= options.warmup) iterations++;
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return { paths: samples, iterations, truncated };
}
