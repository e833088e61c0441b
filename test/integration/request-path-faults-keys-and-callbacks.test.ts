/** The request path's fault sweep (test/support/request-path-sweep.ts) over its keys-and-callbacks shard. */
import { sweepRoutes } from '../support/request-path-sweep';

sweepRoutes('keys-and-callbacks');
