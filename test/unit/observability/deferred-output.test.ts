/**
 * The output whose writer loads on first use (lambdas/shared/observability/deferred-output.ts): what is asked before
 * the writer has loaded is written once it has, in the order asked, each in its own request scope and with the time
 * it was asked; later writes go straight through; `written()` resolves only once everything asked is written.
 */
import { describe, expect, it } from 'vitest';
import { deferredOutput } from '../../../lambdas/shared/observability/deferred-output';
import { currentRequestScope, runInRequestScope } from '../../../lambdas/shared/observability/request-scope';

interface Written {
  readonly text: string;
  readonly requestId: string | undefined;
  readonly askedAt: Date | undefined;
}

/** A writer that loads when `release()` is called, recording each write with the scope it ran in. */
function gatedWriter() {
  const lines: Written[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let loads = 0;
  const output = deferredOutput(async () => {
    loads += 1;
    await gate;
    return { write: (text: string, askedAt?: Date) => lines.push({ text, requestId: currentRequestScope()?.requestId, askedAt }) };
  });
  const write = (text: string) => output.write((writer, askedAt) => writer.write(text, askedAt));
  return { output, write, lines, release, loads: () => loads };
}

describe('a deferred output', () => {
  it('writes what was asked before its writer loaded, in order, each in its request scope and with the time asked', async () => {
    // Prepare
    const { output, write, lines, release, loads } = gatedWriter();
    const before = Date.now();

    // Act: two requests write, interleaved, while the writer is still loading; one write outside any request.
    await runInRequestScope('req-a', async () => write('a1'));
    write('outside');
    await runInRequestScope('req-b', async () => write('b1'));
    await runInRequestScope('req-a', async () => write('a2'));
    const writtenBeforeLoad = lines.length;
    release();
    await output.written();

    // Assess
    expect(writtenBeforeLoad).toBe(0);
    expect(loads()).toBe(1);
    expect(lines.map(({ text, requestId }) => [text, requestId])).toEqual([
      ['a1', 'req-a'],
      ['outside', undefined],
      ['b1', 'req-b'],
      ['a2', 'req-a'],
    ]);
    for (const line of lines) expect(line.askedAt?.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('writes at once, in the same tick and without an asked time, once its writer has loaded', async () => {
    // Prepare
    const { output, write, lines, release } = gatedWriter();
    output.start();
    release();
    await output.written();

    // Act
    await runInRequestScope('req-c', async () => write('now'));

    // Assess
    expect(lines).toEqual([{ text: 'now', requestId: 'req-c', askedAt: undefined }]);
  });

  it('resolves written() only after every write asked before it', async () => {
    // Prepare
    const { output, write, lines, release } = gatedWriter();
    write('first');
    let settled = false;
    const written = output.written().then(() => (settled = true));

    // Act
    await Promise.resolve();
    const settledBeforeLoad = settled;
    release();
    await written;

    // Assess
    expect(settledBeforeLoad).toBe(false);
    expect(lines.map((line) => line.text)).toEqual(['first']);
  });

  it('writes the others when one waiting write throws, and is loaded for the next', async () => {
    // Prepare
    const { output, write, lines, release } = gatedWriter();
    write('before');
    output.write(() => {
      throw new Error('a write failed');
    });
    write('after');

    // Act
    release();
    const outcome = await output.written().then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    write('later');

    // Assess
    expect(outcome).toBe('a write failed');
    expect(lines.map((line) => line.text)).toEqual(['before', 'after', 'later']);
  });
});
