import type { AttributeValue } from '@aws-sdk/client-dynamodb';

type Key = Record<string, AttributeValue>;

/** The items of every page of a Scan or Query, the next page asked for with the previous one's last key. */
export async function* pages(send: (startKey: Key | undefined) => Promise<{ Items?: Key[]; LastEvaluatedKey?: Key }>): AsyncGenerator<Key[]> {
  let startKey: Key | undefined;
  do {
    const page = await send(startKey);
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
