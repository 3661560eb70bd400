import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.js';
import { startMockUpstream, type MockHandler, type MockUpstream } from './mock-upstream.js';

export interface GatewayWithUpstream {
  gateway: TestGateway;
  upstream: MockUpstream;
}

/**
 * The usual test-file setup: a mock provider and the real local gw, started before the file's tests and
 * stopped after them. `onStart` hands both to the file's variables.
 */
export function useGatewayWithUpstream(handler: MockHandler, onStart: (started: GatewayWithUpstream) => void, env: Record<string, string> = {}): void {
  let started: Partial<GatewayWithUpstream> = {};
  beforeAll(async () => {
    started.upstream = await startMockUpstream(handler);
    started.gateway = await startTestGateway(env);
    onStart(started as GatewayWithUpstream);
  });
  afterAll(async () => {
    await started.gateway?.close();
    await started.upstream?.close();
    started = {};
  });
}

/**
 * One real local gw for the file: started before its tests (then `onStart` gets it, for the file's variables and
 * seed data) and closed after them.
 */
export function useTestGateway(onStart: (gateway: TestGateway) => void | Promise<void>, env: Record<string, string> = {}): void {
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    gateway = await startTestGateway(env);
    await onStart(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    gateway = undefined;
  });
}
