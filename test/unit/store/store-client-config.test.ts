import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DYNAMO_CLIENT = fileURLToPath(new URL('../../../shared/store/dynamo-client.ts', import.meta.url));

/**
 * Whether the store client's config has V8's fast properties, asked of V8 itself (`%HasFastProperties`, which needs
 * --allow-natives-syntax: hence a process of its own, on the Node running the tests). The SDK copies that object
 * with a spread several times per call, ~10 µs each from a dictionary (bench/results/issue-34/store-call.md).
 */
function configLayouts(script: string): Record<string, boolean> {
  const output = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, GW_DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) as string) as Record<string, boolean>;
}

describe('the store client config', () => {
  it('has fast properties, from the first client a process makes (without it the SDK leaves a dictionary)', () => {
    const layouts = configLayouts(`
      const { dynamoDocumentClient, createStoreClient } = await import(${JSON.stringify(DYNAMO_CLIENT)});
      const fast = new Function('o', 'return %HasFastProperties(o)');
      const first = dynamoDocumentClient();
      const dictionary = createStoreClient({}, { fastConfig: false });
      console.log(JSON.stringify({ first: fast(first.config), second: fast(createStoreClient().config), sdk: fast(dictionary.config), same: dynamoDocumentClient() === first }));
    `);
    expect(layouts).toEqual({ first: true, second: true, sdk: false, same: true });
  });
});
