import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { buildFunctions } from '../../../scripts/build.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { deployStack, type DeployedStack } from './deployed-stack.js';

export interface StartedStack {
  /** The folder the functions' bundles were built into (removed after the file). */
  bundles: string;
  stack: DeployedStack;
  /** The mock provider (openAIDialectsMockHandler) the file's calls name as their custom host. */
  upstream: MockUpstream;
}

export interface StackLifecycleOptions {
  /** The bundles folder's name prefix under the temporary folder. */
  tempPrefix: string;
  /** The organisation's admin key, bootstrapped with the operator's own credentials (straight to the store). */
  adminKey: string;
  /** After the build, before the deploy (e.g. the console beside the control-plane bundle). */
  beforeDeploy?: (bundles: string) => Promise<unknown>;
  /** After the deploy, before the bootstrap. */
  afterDeploy?: (stack: DeployedStack) => void | Promise<void>;
}

/**
 * What every AWS-shaped suite does around its tests: builds the functions' bundles into a folder of its own while the
 * mock provider starts, deploys the stack on them, bootstraps the organisation, and hands all three to the file's
 * variables; after the file it closes them and removes the folder. After each test, an AWS call outside the calling
 * function's IAM statements (what AWS would refuse) fails the test that made it.
 */
export function useDeployedStack(options: StackLifecycleOptions, onStarted: (started: StartedStack) => void): void {
  const started: Partial<StartedStack> = {};
  beforeAll(async () => {
    started.bundles = mkdtempSync(join(tmpdir(), options.tempPrefix));
    [, started.upstream] = await Promise.all([buildFunctions(started.bundles), startMockUpstream(openAIDialectsMockHandler())]);
    await options.beforeDeploy?.(started.bundles);
    started.stack = await deployStack(started.bundles);
    await options.afterDeploy?.(started.stack);
    const { bootstrapOrganisation } = await import('../../../shared/control-plane/bootstrap.js');
    await bootstrapOrganisation(options.adminKey);
    onStarted(started as StartedStack);
  }, 120_000);

  afterAll(async () => {
    await started.stack?.close();
    await started.upstream?.close();
    if (started.bundles) rmSync(started.bundles, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(started.stack?.denied.splice(0) ?? [], "AWS calls outside the function's IAM statements").toEqual([]);
  });
}
