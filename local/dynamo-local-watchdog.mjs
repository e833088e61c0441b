/**
 * DynamoDB Local's keeper: runs its `java` and stops it when this process's
 * stdin closes. The local stack holds the other end of that pipe, and the
 * operating system closes it however the stack's process ends — a normal
 * stop, a crash, or SIGKILL, when no code of the stack runs any more — so
 * Java never outlives the process that started it (Java itself has no way to
 * watch its parent, and Linux's parent-death signal does not exist on macOS).
 *
 * Stopping is SIGTERM (Java closes its data files), then SIGKILL after the
 * grace period. This process exits when Java does, with its status.
 *
 *   node dynamo-local-watchdog.mjs <grace ms> <command> [args…]
 *
 * Plain JavaScript, run by plain Node: it must start without the stack's
 * TypeScript loader, and in a few milliseconds.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const [grace, command, ...args] = process.argv.slice(2);
const graceMs = Number(grace);
if (!command || !Number.isFinite(graceMs)) {
  console.error('usage: node dynamo-local-watchdog.mjs <grace ms> <command> [args…]');
  process.exit(2);
}

const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;

function stop() {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
}

// End of input: the stack closed its end (stop) or is gone.
process.stdin.on('end', stop).on('close', stop).on('error', stop);
process.stdin.resume();
// A direct signal to this process (it runs in its own process group, so a terminal's Ctrl-C never reaches it).
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, stop);

child.on('error', (error) => {
  console.error(`DynamoDB Local could not be started (${command}): ${error.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
