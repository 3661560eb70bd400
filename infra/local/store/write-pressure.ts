import type { Server } from 'node:http';

/**
 * Calls `onWrite` for every write call (PutItem, BatchWriteItem) the store receives, so a burst of request
 * logs gets the log cap checked without waiting for the next timed pass (housekeeping.ts). Reads only a
 * header: it costs the store nothing per request.
 */
export function onStoreWrite(server: Server, onWrite: () => void): void {
  server.on('request', (request: { headers: Record<string, string | string[] | undefined> }, response: { once(event: 'finish', listener: () => void): void }) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    // Counted once answered, so a check it triggers sees the write.
    if (target.endsWith('.BatchWriteItem') || target.endsWith('.PutItem')) response.once('finish', onWrite);
  });
}
