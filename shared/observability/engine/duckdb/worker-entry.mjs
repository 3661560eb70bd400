// The DuckDB worker's entry (engine.ts starts it): plain JavaScript, so a worker can start whatever loader the
// main thread runs under. When the worker module is TypeScript (npm start, tests), tsx is registered first.
import { workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) (await import('tsx/esm/api')).register();
await import(workerData.module);
