import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `npm start` serves the console at /console: build it once when no build is there yet (about a second). */
export async function ensureConsoleBuilt(dir = process.env.GW_CONSOLE_DIR ?? 'dist/console'): Promise<void> {
  if (existsSync(join(dir, 'index.html'))) return;
  const { buildConsole } = await import('../../scripts/build-console.js');
  await buildConsole(dir);
}
