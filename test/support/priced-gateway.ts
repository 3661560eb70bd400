import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.js';
import { startMockUpstream, type MockHandler, type MockUpstream } from './mock-upstream.js';

/** A model's price as the local pricing files give it (USD per million tokens). */
export interface TestPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

/** The gateway and mock provider of a test file; set once its beforeAll has run. */
export interface PricedGateway {
  gateway: TestGateway;
  upstream: MockUpstream;
}

/**
 * A test file's gateway with its own model prices (a temporary pricing folder, `{provider}.json`) and a mock
 * provider as a real HTTP server: started before the file's tests, closed and removed after them.
 */
export function usePricedGateway(options: { provider: string; prices: Record<string, TestPrice>; handler: MockHandler; env?: Record<string, string> }): PricedGateway {
  const started = {} as PricedGateway;
  const pricingDir = mkdtempSync(join(tmpdir(), 'gw-test-prices-'));
  writeFileSync(join(pricingDir, `${options.provider}.json`), JSON.stringify({ models: options.prices }));
  beforeAll(async () => {
    started.upstream = await startMockUpstream(options.handler);
    started.gateway = await startTestGateway(Object.assign({ MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir }, options.env));
  });
  afterAll(async () => {
    await started.gateway?.close();
    await started.upstream?.close();
    rmSync(pricingDir, { recursive: true, force: true });
  });
  return started;
}
