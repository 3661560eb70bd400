import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './support/synth.js';

const clone = mkdtempSync(join(tmpdir(), 'gw-fresh-clone-'));
afterAll(() => rmSync(clone, { recursive: true, force: true }));

/** A fresh clone: the repository's files (as in this work tree) without dist/, with the installed node_modules. */
function freshClone(): void {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(PROJECT_ROOT, file))) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(PROJECT_ROOT, file), join(clone, file));
  }
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(clone, 'node_modules'));
}

describe('cdk deploy from a fresh clone (docs/deploy.md)', () => {
  it('ships the console in the control-plane function: the bundling step builds it', () => {
    freshClone();
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const context = (JSON.parse(readFileSync(join(clone, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
    // What `cdk deploy` runs first (cdk.json's app), with the context and output folder the CLI hands it.
    const synth = spawnSync(process.execPath, ['--import', 'tsx', 'infra/cdk/app.ts'], {
      cwd: clone,
      env: { ...process.env, CDK_OUTDIR: join(clone, 'cdk.out'), CDK_CONTEXT_JSON: JSON.stringify(context) },
      encoding: 'utf8',
    });
    expect(synth.status, synth.stderr).toBe(0);
    const assets = readdirSync(join(clone, 'cdk.out')).filter((name) => name.startsWith('asset.'));
    const withConsole = assets.filter((asset) => existsSync(join(clone, 'cdk.out', asset, 'console', 'index.html')));
    expect(withConsole).toHaveLength(1);
    const html = readFileSync(join(clone, 'cdk.out', withConsole[0], 'console', 'index.html'), 'utf8');
    const script = /src="assets\/([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(existsSync(join(clone, 'cdk.out', withConsole[0], 'console', 'assets', script!))).toBe(true);
  }, 300_000);
});
