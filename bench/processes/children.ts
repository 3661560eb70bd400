import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildSpec {
  /** Shown in errors and in the report. */
  name: string;
  /** Arguments to `node`. */
  nodeArgs: string[];
  /**
   * Which Node runs it: `measured` for what the bench measures (gw, the stores, the mock, the minimal proxy, bundle
   * imports), on the registry's measured Node (`--node`); `harness` for the tools (autocannon, the build), on the
   * harness's own. Required, so that no new child lands on the wrong one by default.
   */
  runtime: 'measured' | 'harness';
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Keep all of stdout (short-lived children whose output is their result). */
  collectStdout?: boolean;
  /**
   * A comparison process (Portkey), not one the run depends on: its unexpected exit is reported with the run's
   * errors but does not stop the phases (`assertAlive`), so gw's measurements go on without its column.
   */
  optional?: boolean;
}

const STDERR_TAIL_BYTES = 16 * 1024;

/**
 * One child process the harness started. Every child leads its own process group (`detached`), so stopping it
 * also stops anything it started, and a Ctrl-C at the terminal reaches only the harness, which then stops the
 * children in order. The harness keeps the child's stdin open; `parent-watchdog.ts` makes long-lived children
 * exit when it closes.
 */
export class ManagedChild {
  readonly exited: Promise<ExitInfo>;
  private readonly process: ChildProcess;
  private readonly lineListeners: Array<(line: string) => void> = [];
  private readonly stderrLineListeners: Array<(line: string) => void> = [];
  private stdoutText = '';
  private stderrTail = '';
  private stderrTotal = 0;
  private exit: ExitInfo | undefined;
  private stopping = false;

  constructor(
    readonly spec: ChildSpec,
    nodeBinary: string,
    onUnexpectedExit: (child: ManagedChild, exit: ExitInfo) => void,
  ) {
    this.process = spawn(nodeBinary, spec.nodeArgs, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise<ExitInfo>((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.exit = { code, signal };
        if (!this.stopping && !spec.collectStdout) onUnexpectedExit(this, this.exit);
        resolve(this.exit);
      });
      this.process.once('error', (error) => {
        this.stderrTail += `\n[spawn error] ${error.message}`;
        this.exit = { code: -1, signal: null };
        resolve(this.exit);
      });
    });
    this.process.stdin?.on('error', () => undefined);
    this.process.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderrTotal += text.length;
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
    });
    if (!spec.collectStdout) {
      createInterface({ input: this.process.stderr!, crlfDelay: Infinity }).on('line', (line) => {
        for (const listener of this.stderrLineListeners) listener(line);
      });
    }
    if (spec.collectStdout) {
      this.process.stdout?.on('data', (chunk: Buffer) => (this.stdoutText += chunk.toString('utf8')));
    } else {
      // Drained line by line at whatever rate the child writes: a child blocked on a full pipe would skew timings.
      createInterface({ input: this.process.stdout!, crlfDelay: Infinity }).on('line', (line) => {
        for (const listener of this.lineListeners) listener(line);
      });
    }
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** Characters written to stderr so far (the text itself is kept only as a tail). */
  get stderrLength(): number {
    return this.stderrTotal;
  }

  /** What was written to stderr since `length` (as far as the kept tail reaches). */
  stderrSince(length: number): string {
    const written = this.stderrTotal - length;
    return written <= 0 ? '' : this.stderrTail.slice(-Math.min(written, this.stderrTail.length));
  }

  get hasExited(): boolean {
    return this.exit !== undefined;
  }

  onLine(listener: (line: string) => void): void {
    this.lineListeners.push(listener);
  }

  onStderrLine(listener: (line: string) => void): void {
    this.stderrLineListeners.push(listener);
  }

  /** Resolves with the first stdout line that `match` accepts; rejects on timeout or when the child exits first. */
  waitForLine<T>(match: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const index = this.lineListeners.indexOf(listener);
        if (index >= 0) this.lineListeners.splice(index, 1);
        outcome();
      };
      const listener = (line: string) => {
        const found = match(line);
        if (found !== undefined) settle(() => resolve(found));
      };
      const timer = setTimeout(
        () => settle(() => reject(new Error(`${this.name} did not become ready within ${timeoutMs} ms; stderr: ${this.stderrTail.slice(-2000)}`))),
        timeoutMs,
      );
      this.lineListeners.push(listener);
      void this.exited.then((exit) =>
        settle(() => reject(new Error(`${this.name} exited (${describeExit(exit)}) before it was ready; stderr: ${this.stderrTail.slice(-2000)}`))),
      );
    });
  }

  /** SIGTERM to the process group, then SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 10_000): Promise<ExitInfo> {
    this.stopping = true;
    if (this.exit) return this.exit;
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    // Anything the child started and left behind in its group goes too.
    this.signalGroup('SIGKILL');
    return exit;
  }

  /** Synchronous last resort (process 'exit' handler): SIGKILL to the whole group. */
  killNow(): void {
    this.stopping = true;
    this.signalGroup('SIGKILL');
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.process.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  }
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/** The last error a crashed process printed (`Error: …` and where), on one line, for the report. */
export function lastErrorOf(stderr: string): string | undefined {
  const lines = stderr.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^\w*Error\b.*:/.test(lines[i].trim())) {
      return [lines[i].trim(), ...lines.slice(i + 1, i + 3).map((line) => line.trim()).filter((line) => line.startsWith('at '))].join(' ');
    }
  }
  return undefined;
}

/** Every process the harness started, so that all of them are stopped on every way out. */
export class ChildRegistry {
  private readonly children = new Set<ManagedChild>();
  private readonly failures: string[] = [];
  /** Unexpected exits of optional children: reported, never thrown by `assertAlive`. */
  private readonly optionalFailures: Array<{ child: ManagedChild; text: string }> = [];

  /** `measuredNode`: the binary of the measured children (`--node`); the harness's own by default. */
  constructor(readonly measuredNode: string = process.execPath) {}

  /** The binary a child of this runtime runs on. */
  nodeFor(runtime: ChildSpec['runtime']): string {
    return runtime === 'measured' ? this.measuredNode : process.execPath;
  }

  start(spec: ChildSpec): ManagedChild {
    const child = new ManagedChild(spec, this.nodeFor(spec.runtime), (failed, exit) => {
      const cause = lastErrorOf(failed.stderr);
      const text = `${failed.name} exited unexpectedly (${describeExit(exit)})${cause ? `: ${cause}` : ''}\nstderr (tail): ${failed.stderr.slice(-3000)}`;
      if (spec.optional) this.optionalFailures.push({ child: failed, text });
      else this.failures.push(text);
    });
    this.children.add(child);
    void child.exited.then(() => {
      if (!spec.collectStdout) return;
      this.children.delete(child);
    });
    return child;
  }

  /** Runs a short-lived child to completion; kills it after `timeoutMs`. */
  async run(spec: Omit<ChildSpec, 'collectStdout'>, timeoutMs: number): Promise<{ exit: ExitInfo; stdout: string; stderr: string }> {
    const child = this.start({ ...spec, collectStdout: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void child.stop(1_000);
    }, timeoutMs);
    const exit = await child.exited;
    clearTimeout(timer);
    if (timedOut) throw new Error(`${spec.name} did not finish within ${timeoutMs} ms`);
    return { exit, stdout: child.stdout, stderr: child.stderr };
  }

  /** Throws when a long-lived child died: every number measured after that would be meaningless. */
  assertAlive(): void {
    if (this.failures.length > 0) throw new Error(this.failures.join('\n'));
  }

  unexpectedExits(): string[] {
    return [...this.failures, ...this.optionalFailures.map((failure) => failure.text)];
  }

  /** An optional child that died while starting was reported as unavailable already: not a run error too. */
  dismissExit(child: ManagedChild): void {
    for (let i = this.optionalFailures.length - 1; i >= 0; i--) if (this.optionalFailures[i].child === child) this.optionalFailures.splice(i, 1);
  }

  async stopAll(graceMs = 10_000): Promise<void> {
    await Promise.all([...this.children].map((child) => child.stop(graceMs)));
    this.children.clear();
  }

  killAllNow(): void {
    for (const child of this.children) child.killNow();
    this.children.clear();
  }
}
