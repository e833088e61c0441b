/**
 * A stand-in for `npm start`'s process under a shell (test/unit/local/stack-lifetime.test.ts): the terminal closes,
 * SIGHUP reaches the whole job, and the shell that launched this process dies of it. Whichever of the two the event
 * loop sees first, the stop must be reported as the signal's. To make both certain at once, the loop is held here
 * until the launcher is gone and the launcher watch is due, then released.
 */
import { guardStackLifetime } from '../../../local/stack-lifetime';

const WATCH_MS = 10;
const lifetime = guardStackLifetime({ deadlineMs: 5_000, launcherPollMs: WATCH_MS });
lifetime.stopWith(() => Promise.resolve());
const launcher = process.ppid;
console.log('ready');
const pause = new Int32Array(new SharedArrayBuffer(4));
// Synchronous on purpose: nothing of the event loop runs until the launcher has died of the signal.
while (process.ppid === launcher) Atomics.wait(pause, 0, 0, 5);
Atomics.wait(pause, 0, 0, WATCH_MS * 5);
