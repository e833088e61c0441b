/**
 * Entry point of `npm run -s admin` (bundled by scripts/build-admin.ts into dist/admin.mjs; `tsx scripts/admin.ts`
 * runs the same from source): one command of admin-cli.ts, or a batch of them (admin-batch.ts). What a command needs
 * (the commands, the back office, the AWS SDK) is imported on first use: `--help` and usage errors load only
 * admin-args.ts.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BackOffice } from '../lambdas/back-office/back-office';
import { LOCAL_STATE_FILE } from '../local/state-file';
import { parseAdminArgs, USAGE, UsageError } from './admin-args';
import type { PasswordSource, RequestIds } from './admin-cli';

/** Everything standard input holds, without the line break that ends it. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** What the terminal sent past the last line read (a paste of two lines arrives in one chunk). */
let typedAhead = '';

/** One line typed at the terminal, not echoed (what was typed ahead first: a pasted line and its confirmation). */
function hiddenLine(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    let line = '';
    let finished = false;
    const done = (error?: Error) => {
      finished = true;
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const take = (text: string) => {
      const chars = [...text];
      for (let i = 0; i < chars.length; i += 1) {
        const char = chars[i];
        if (char === '\r' || char === '\n') {
          // A CRLF's LF, and anything after the line, waits for the next question.
          typedAhead = chars.slice(char === '\r' && chars[i + 1] === '\n' ? i + 2 : i + 1).join('');
          return done();
        }
        if (char === '\u0003') return done(new UsageError('Cancelled'));
        if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
        else line += char;
      }
    };
    const onData = (data: Buffer) => take(data.toString('utf8'));
    input.setRawMode(true);
    // Asked once the terminal echoes nothing: an answer typed right after the question is not shown.
    process.stderr.write(question);
    input.on('data', onData);
    const ahead = typedAhead;
    typedAhead = '';
    take(ahead);
    if (!finished) input.resume();
  });
}

/** The password at the terminal (asked twice), or on standard input (`--password-stdin`, for scripts). */
const PASSWORDS: PasswordSource = {
  async read(from) {
    if (from === 'env') throw new UsageError('--password-env is read in a batch only (--batch): here, give the password at the prompt or with --password-stdin');
    if (from === 'stdin') return readStdin();
    if (!process.stdin.isTTY) throw new UsageError('No terminal to ask for the password: give it on standard input with --password-stdin');
    const first = await hiddenLine('New password: ');
    if ((await hiddenLine('The same again: ')) !== first) throw new UsageError('The two passwords differ');
    return first;
  },
};

/**
 * A command given no --request-id gets one, told on stderr before anything is sent: whatever happens next (an error,
 * a dropped connection, a killed terminal), the operator can run the same command again with it and the change is
 * made once.
 */
const REQUEST_IDS: RequestIds = {
  create: () => randomUUID(),
  announce: (requestId) => process.stderr.write(`Request id ${requestId}: to run this command again safely, add --request-id ${requestId}\n`),
};

/** Written, and flushed to a pipe, before the next line runs or the process exits. */
const writeLine = (text: string) => new Promise<void>((resolve, reject) => process.stdout.write(`${text}\n`, (error) => (error ? reject(error) : resolve())));

/** The back office of the command line's stage (or the local stack), loaded and made once. */
function officeOf(stage: string | undefined): () => Promise<BackOffice> {
  let office: Promise<BackOffice> | undefined;
  return () => (office ??= import('./admin-office').then(({ backOfficeFor }) => backOfficeFor(stage)));
}

/** What the command line of a batch may give beside its lines. */
const BATCH_OWN_FLAGS: ReadonlySet<string> = new Set(['batch', 'stop-on-error', 'stage']);

/** A command or a command's flag beside `--batch` would be silently ignored: refused. */
function refuseBatchExtras(flags: readonly string[], positionals: readonly string[]): void {
  const extras = [...positionals, ...flags.filter((flag) => !BATCH_OWN_FLAGS.has(flag)).map((flag) => `--${flag}`)];
  if (extras.length > 0) throw new UsageError(`--batch takes its commands from the file, each line with its own flags; beside it only --stop-on-error and --stage (not ${extras.join(' ')})`);
}

/** The lines of `--batch FILE` (`-`: standard input, read as it comes). A file that cannot be read is a usage error. */
async function batchLines(file: string) {
  let input: NodeJS.ReadableStream = process.stdin;
  if (file !== '-') {
    const stream = createReadStream(file);
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', (error) => reject(new UsageError(`--batch ${file}: ${error.message}`))));
    input = stream;
  }
  return createInterface({ input, crlfDelay: Infinity });
}

/** `--batch FILE|-`: every line, one answer a line on stdout (admin-batch.ts). */
async function batch(file: string, stage: string | undefined, stopOnError: boolean): Promise<number> {
  const { runBatch } = await import('./admin-batch');
  return runBatch(await batchLines(file), { stage, stopOnError }, { office: officeOf(stage), write: (answer) => writeLine(JSON.stringify(answer)) });
}

async function main(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseAdminArgs(argv);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const file = values.batch;
    if (file !== undefined) refuseBatchExtras(Object.keys(values), positionals);
    const cli = await import('./admin-cli');
    if (!values.stage && !existsSync(LOCAL_STATE_FILE)) throw new cli.LocalStackNotRunning();
    if (file !== undefined) return await batch(file, values.stage, values['stop-on-error'] === true);
    const result = cli.runLocalCommand(argv) ?? (await cli.runAdminCommand(argv, await officeOf(values.stage)(), PASSWORDS, REQUEST_IDS));
    await writeLine(JSON.stringify(result));
    return 0;
  } catch (error) {
    const failure = (await import('./admin-cli')).describeFailure(error);
    process.stderr.write(`${JSON.stringify(failure)}\n`);
    return failure.code === 'USAGE' ? 2 : 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
