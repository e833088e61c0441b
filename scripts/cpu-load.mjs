#!/usr/bin/env node
/**
 * A CPU load for robustness runs of the test suite (docs/testing.md): N worker threads spinning in a busy loop
 * (default: one per core) until the process is stopped (Ctrl-C, SIGTERM) or `--seconds` pass.
 *
 *   node scripts/cpu-load.mjs [--threads N] [--seconds S]
 */
import { availableParallelism } from 'node:os';
import { Worker, isMainThread } from 'node:worker_threads';

if (!isMainThread) {
  // Spin: nothing but CPU, no allocation, no I/O.
  let x = 0;
  for (;;) x = (x * 1103515245 + 12345) % 2147483648;
}

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const threads = arg('threads', availableParallelism());
const seconds = arg('seconds', 0);
const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url)));
console.error(`cpu-load: ${threads} busy threads (pid ${process.pid})${seconds ? ` for ${seconds} s` : ''}`);
const stop = () => {
  for (const worker of workers) void worker.terminate();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
if (seconds > 0) setTimeout(stop, seconds * 1000);
