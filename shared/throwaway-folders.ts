import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Folders a process makes for itself that nothing reads once it ends: an in-memory gw's secrets, charge journal and
 * blobs (infra/local/server.ts), its log engine's spill, journal and exports (observability/engine/select.ts). Each
 * owner removes its own when it closes; whatever is still there when the process ends goes too — at a normal exit,
 * and also when a signal ends it. A process ended by SIGTERM, SIGINT or SIGHUP never runs its 'exit' handlers (a
 * test worker, which vitest stops with SIGTERM; a script embedding gw, stopped with Ctrl-C), and left every such
 * folder in /tmp. SIGKILL cannot be caught: who sends it gives the process a TMPDIR of its own and removes that
 * (test/support/gw-process.ts).
 */
export class ThrowawayFolders {
  private readonly folders = new Set<string>();

  constructor() {
    owners.add(this);
  }

  /** `path`, removed with the others (made by whoever writes into it first). */
  add(path: string): string {
    removeAtProcessEnd();
    this.folders.add(path);
    return path;
  }

  /** A new folder `<tmpdir>/<prefix>XXXXXX`, removed with the others. */
  make(prefix: string): string {
    return this.add(mkdtempSync(join(tmpdir(), prefix)));
  }

  /**
   * Removes the folders. They stay known: a later user of the same paths in this process (settings are read once)
   * makes them again on first write, and they go at its close or the process's end like the first time.
   */
  remove(): void {
    for (const folder of this.folders) rmSync(folder, { recursive: true, force: true });
  }
}

const owners = new Set<ThrowawayFolders>();
const ENDING_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
let hooked = false;

function removeAll(): void {
  for (const owner of owners) owner.remove();
}

function removeAtProcessEnd(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', removeAll);
  for (const signal of ENDING_SIGNALS) {
    const onSignal = (): void => {
      // Someone else handles the signal (npm start's graceful shutdown, which closes gw and so removes the folders
      // after the last write): not ours to act on.
      if (process.listenerCount(signal) > 1) return;
      removeAll();
      // Then the signal's own effect, as if nobody had listened: the process ends, with the status that says by what.
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
