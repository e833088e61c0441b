/**
 * The process's one output of log lines and metric documents (deferred-output.ts over powertools.ts): the logger
 * (logger.ts) and the metrics (metrics.ts) write through it, so their lines and documents keep the order they were
 * asked in, whenever Powertools has loaded.
 */
import { deferredOutput } from './deferred-output';

export const serviceOutput = deferredOutput(() => import('./powertools'));
