import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedFiles } from '../../support/test-projects.js';

/**
 * Which files share a worker process (vitest.config.ts, test/support/test-projects.ts): a file that would leak into
 * the worker's later files must keep a process of its own, and a new file must be classified without being listed.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'test-projects-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Spelled in two parts, so that this file itself does not read as one that mocks a module.
const VI_MOCK = 'vi.' + 'mock(';
const VI_DO_MOCK = 'vi.' + 'doMock(';

function write(root: string, file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

describe('test files that share a worker process (test/support/test-projects.ts)', () => {
  it('shares integration, unit and infrastructure files, but not the browser tests, a file that uses vi.mock, or the AWS-shaped and client tests', () => {
    const shared = sharedFiles(ROOT);
    expect(shared).toContain('test/integration/chat-passthrough.test.ts');
    expect(shared).toContain('test/unit/support/test-projects.test.ts');
    expect(shared).not.toContain('test/integration/console/console.test.ts');
    expect(shared).not.toContain('test/integration/sdk/js-sdk-openai7.test.ts');
    expect(shared).toContain('test/infra/api.test.ts');
    expect(shared.filter((file) => !/^test\/(integration|unit|infra)\//.test(file))).toEqual([]);
  });

  it('classifies a new file by what it does, unlisted: a plain one shares, one that mocks a module (vi.mock, vi.doMock) keeps its own process', () => {
    write(scratch, 'test/integration/new-area/plain.test.ts', "import { it } from 'vitest';\nit('works', () => undefined);\n");
    write(scratch, 'test/integration/new-area/mocking.test.ts', `import { vi } from 'vitest';\n${VI_MOCK}'node:fs');\n`);
    write(scratch, 'test/unit/late-mock.test.ts', `import { vi } from 'vitest';\n${VI_DO_MOCK}'node:fs', () => ({}));\n`);
    write(scratch, 'test/unit/helper.ts', 'export const notATest = true;\n');
    write(scratch, 'test/integration/console/new-page.test.ts', "import { it } from 'vitest';\nit('renders', () => undefined);\n");
    expect(sharedFiles(scratch)).toEqual(['test/integration/new-area/plain.test.ts']);
  });
});
