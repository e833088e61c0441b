/**
 * The local stack's process ends when told to, also when whatever read its output has gone first: its writes then
 * fail (EPIPE), and before the guard handled that, each failure's report failed again in an endless next-tick loop
 * that starved the stop and its deadline (the process spun at 60–80 % CPU and left DynamoDB Local running). A
 * stand-in process (test/support/processes/chatty-stack.ts) writes continuously, so the failure is certain. Waits are
 * bounded polls; nothing asserts how fast the stop is beyond "it ends at all" (its own deadline is 5 s).
 *
 * A closed terminal's SIGHUP reaches the whole job, and the shell above the stack dies of it: the stop is the
 * signal's, not "the launcher is gone" (the launcher watch used to win when its timer and the signal were both due,
 * as once in CI). The stand-in holds its event loop until both are certain, so the order is the loop's, not luck's.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

describe('the local stack lifetime', () => {
  it('stops on SIGTERM after its output is gone, instead of spinning on failed writes', async () => {
    const child = spawn(tsx, [join(root, 'test', 'support', 'processes', 'chatty-stack.ts')], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // The reader goes first; the process keeps writing into the closed pipes.
      child.stdout.destroy();
      child.stderr.destroy();
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(-(child.pid as number), 'SIGTERM');
      const ended = await Promise.race([exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 60_000))]);
      expect(ended).toEqual({ code: 0, signal: null });
    } finally {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }, 120_000);

  it('reports a SIGHUP that also ended its launching shell as the signal, not as the launcher gone', async () => {
    // sh stays the parent (a command follows), as `npm start` under a terminal; the job is its process group.
    const script = join(root, 'test', 'support', 'processes', 'hangup-with-launcher.ts');
    const launcher = spawn('sh', ['-c', '"$0" --import tsx "$1"; true', process.execPath, script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    launcher.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const stackEnded = new Promise<void>((resolve) => launcher.stdout.once('close', () => resolve()));
    try {
      await new Promise<void>((resolve) => launcher.stdout.once('data', () => resolve()));
      process.kill(-(launcher.pid as number), 'SIGHUP');
      const ended = await Promise.race([stackEnded.then(() => 'ended'), new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 60_000))]);
      expect(ended, stderr).toBe('ended');
      await new Promise<void>((resolve) => (launcher.stderr.closed ? resolve() : launcher.stderr.once('close', () => resolve())));
      expect(stderr).toContain('SIGHUP: stopping the local stack');
      expect(stderr).not.toContain('is gone');
    } finally {
      try {
        process.kill(-(launcher.pid as number), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }, 120_000);
});
