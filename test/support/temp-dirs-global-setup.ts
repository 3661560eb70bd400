import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every test run gets a temporary folder of its own as TMPDIR (inherited by the test workers and by every gw, store
 * or browser they spawn), so what a run leaves behind is told apart from what other runs on the machine write.
 * At the end, the folder is removed whatever it holds, and the run fails if gw's or cdk's folders were still there:
 * a test (or gw on a clean shutdown) that does not remove what it created leaked it into /tmp on every run before.
 */
const LEAK = /^(gw-|cdk\.out)/;

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'vitest-run-'));
  // tsx keeps its compile cache in the temporary folder: the gw processes tests spawn keep using the machine's.
  const tsxCache = `tsx-${process.getuid?.() ?? 0}`;
  mkdirSync(join(tmpdir(), tsxCache), { recursive: true });
  symlinkSync(join(tmpdir(), tsxCache), join(root, tsxCache));
  process.env.TMPDIR = root;
  // What a run shares between its files (the console build: test/integration/console/console-support.ts).
  process.env.GW_TEST_RUN_DIR = root;
  return () => {
    delete process.env.GW_TEST_RUN_DIR;
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = readdirSync(root).filter((name) => LEAK.test(name));
    rmSync(root, { recursive: true, force: true });
    if (left.length === 0) return;
    const message = `the run left ${left.length} temporary folder(s) behind (removed now; each test must remove what it creates): ${summary(left)}`;
    // GW_TEST_TEMP_WARN_ONLY=ON reports them without failing, for local debugging of one file; CI keeps the default.
    if (process.env.GW_TEST_TEMP_WARN_ONLY === 'ON') {
      console.warn(`warning: ${message}`);
      return;
    }
    // vitest reports an error thrown here but still exits 0: the exit code is what CI reads.
    process.exitCode = 1;
    throw new Error(message);
  };
}

/** Names grouped by their prefix (the random suffix dropped): `gw-blobs- ×3, cdk.out ×1`. */
function summary(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) {
    const prefix = name.replace(/(-\d+)?(-[A-Za-z0-9]+)?$/, '');
    counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  return [...counts].map(([prefix, count]) => `${prefix} ×${count}`).join(', ');
}
