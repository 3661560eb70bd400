// Root postinstall: installs test/clients/node22 (openai 7, ai 7, @ai-sdk/openai 4), client releases gw is tested
// against whose package.json asks for Node >= 22. Kept out of the root dependencies so `npm install` on Node 20
// prints no EBADENGINE warning for them; the tests run them on Node 20 and 24 alike.
import process from 'node:process';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'clients', 'node22');
if (!existsSync(join(folder, 'package-lock.json'))) process.exit(0); // a packed copy of gw has no test folder

const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
const result = spawnSync(npm[0], [...npm[1], 'ci', '--prefix', folder, '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
  stdio: ['ignore', 'ignore', 'inherit'],
  // The parent npm's settings (a global or production install, a workspace filter) must not leak into this one.
  env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_config_') || key === 'npm_config_registry' || key === 'npm_config_cache')),
});
if (result.status !== 0) {
  process.stderr.write(`gw: installing the Node 22 client matrix in ${folder} failed (npm exit ${result.status ?? result.signal}); only the client tests in test/integration that use it need it.\n`);
  process.exit(result.status ?? 1);
}
