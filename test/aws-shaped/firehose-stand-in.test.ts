import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnLoopback, type LoopbackServer } from '../../shared/store/recording/stand-ins/wire.js';
import { firehoseStandIn, templateDeaggregation, type FirehoseStandIn } from './support/firehose-stand-in.js';
import { synthGwStack } from '../infra/support/synth.js';

/**
 * The Firehose stand-in splits a record into rows exactly as the stack's streams do: by multi-record deaggregation
 * when the template configures it (at most 500 rows a record), never otherwise; a record that breaks the rule fails
 * processing as a whole. The sink's packing (firehose-sink.ts) is only as truthful as this.
 */
const servers: LoopbackServer[] = [];
const row = (index: number) => `${JSON.stringify({ id: `req_${index}`, created_at: '2026-11-27 10:00:00.000' })}\n`;

async function put(standIn: FirehoseStandIn, records: string[]): Promise<void> {
  const server = await serveOnLoopback(standIn.handler);
  servers.push(server);
  const client = new FirehoseClient({ region: 'us-east-1', endpoint: server.url, credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' } });
  await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'gw-requests', Records: records.map((text) => ({ Data: Buffer.from(text) })) }));
}

const standIn = (deaggregation?: 'JSON') => firehoseStandIn({ region: 'us-east-1', account: '123456789012', streams: ['gw-requests'], authorize: () => true, deaggregation });

afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('the Firehose stand-in deaggregates as the template says', () => {
  let deaggregation: 'JSON' | undefined;
  beforeAll(() => {
    deaggregation = templateDeaggregation(synthGwStack({ context: {} }).template.toJSON() as Parameters<typeof templateDeaggregation>[0]);
  });

  it("reads the stack's streams as deaggregating JSON", () => {
    expect(deaggregation).toBe('JSON');
  });

  it('splits a record of many JSON lines into its rows, each filed once', async () => {
    const firehose = standIn(deaggregation);
    await put(firehose, [row(1) + row(2) + row(3), row(4)]);
    expect(firehose.delivered.get('gw-requests')!.map(({ row: delivered }) => delivered.id)).toEqual(['req_1', 'req_2', 'req_3', 'req_4']);
    expect(firehose.processingFailed.get('gw-requests') ?? []).toEqual([]);
  });

  it('fails a record of more than 500 rows as a whole, delivering none of it', async () => {
    const firehose = standIn(deaggregation);
    await put(firehose, [Array.from({ length: 501 }, (_unused, index) => row(index)).join(''), row(999)]);
    expect(firehose.delivered.get('gw-requests')!.map(({ row: delivered }) => delivered.id)).toEqual(['req_999']);
    expect(firehose.processingFailed.get('gw-requests')).toHaveLength(1);
  });

  it('without deaggregation takes a record as one row: a record of several rows fails processing', async () => {
    const firehose = standIn();
    await put(firehose, [row(1) + row(2), row(3)]);
    expect(firehose.delivered.get('gw-requests')!.map(({ row: delivered }) => delivered.id)).toEqual(['req_3']);
    expect(firehose.processingFailed.get('gw-requests')).toHaveLength(1);
  });
});
