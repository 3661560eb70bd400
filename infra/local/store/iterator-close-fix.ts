import { createRequire } from 'node:module';

/**
 * dynalite 4 turns level iterators into streams (every Scan and Query) and closes each one, when its stream
 * ends or is cut at `Limit`, by calling `iterator.return()`. abstract-level 3 iterators have no `return`, only
 * `close()`, so none was ever closed: the database keeps every one in its open-resource set, and an open
 * memory-level iterator pins the snapshot of the whole tree it started on. Every item written since any read
 * stayed in memory, deleted or not (TTL sweep and log caps freed nothing; ~9 KiB per request log). Giving the
 * iterators a `return` that closes them makes dynalite's own clean-up work. Applied once, to each copy of
 * abstract-level that dynalite's backends (memory-level in memory, classic-level on disk) load.
 */
let applied = false;

export function closeDynaliteIterators(): void {
  if (applied) return;
  applied = true;
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const copies = new Set<unknown>();
  for (const backend of ['memory-level', 'level']) {
    try {
      const fromBackend = createRequire(fromDynalite.resolve(backend));
      // `level` re-exports classic-level: resolve abstract-level from there too.
      const from = backend === 'level' ? createRequire(fromBackend.resolve('classic-level')) : fromBackend;
      copies.add(from('abstract-level'));
    } catch {
      // A backend that is not installed needs no fix.
    }
  }
  for (const copy of copies) {
    const { AbstractIterator } = copy as { AbstractIterator: { prototype: object } };
    // The common base of key, value and entry iterators.
    const common = Object.getPrototypeOf(AbstractIterator.prototype) as { return?: unknown; close(): Promise<void> };
    if (typeof common.return === 'function') continue;
    Object.defineProperty(common, 'return', {
      configurable: true,
      writable: true,
      value: async function (this: { close(): Promise<void> }) {
        await this.close();
        return { done: true, value: undefined };
      },
    });
  }
}
