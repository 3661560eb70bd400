/** `npm start` serves the console at /console/: build it once when no build is there yet (about a second). */
export async function ensureConsoleBuilt(dir = process.env.GW_CONSOLE_DIR ?? 'dist/console'): Promise<void> {
  const { ensureConsoleBuilt: buildWhenMissing } = await import('../../scripts/build-console.js');
  await buildWhenMissing(dir);
}
