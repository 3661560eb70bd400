import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm start` serves the console at /console: build it once when no build is there yet (about a second). The
 * build goes to a folder of its own and is then renamed into place, so two gw starting at once (tests, two
 * terminals) never see or remove each other's half-written build.
 */
export async function ensureConsoleBuilt(dir = process.env.GW_CONSOLE_DIR ?? 'dist/console'): Promise<void> {
  if (existsSync(join(dir, 'index.html'))) return;
  const { buildConsole } = await import('../../scripts/build-console.js');
  const staging = `${dir}.building-${process.pid}`;
  await buildConsole(staging);
  try {
    if (existsSync(dir) && !existsSync(join(dir, 'index.html'))) rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } catch (error) {
    // Another process put its build there first: that one serves.
    if (!existsSync(join(dir, 'index.html'))) throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
