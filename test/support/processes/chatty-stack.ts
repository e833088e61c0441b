/**
 * A stand-in for `npm start`'s process (test/unit/local/stack-lifetime.test.ts): the real lifetime guard, a stop
 * that takes a moment, and a log line every 20 ms, as a busy local stack writes its call log.
 */
import { guardStackLifetime } from '../../../local/stack-lifetime';

const lifetime = guardStackLifetime({ deadlineMs: 5_000 });
lifetime.stopWith(() => new Promise((resolve) => setTimeout(resolve, 200)));
setInterval(() => console.log(JSON.stringify({ level: 'INFO', message: 'request', at: Date.now() })), 20);
console.log('ready');
