/**
 * Batch mode of the admin CLI (`--batch FILE|-`): many commands in one process, so a seeding script pays node's
 * start and the back office's loading once, and reuses one DynamoDB connection.
 *
 * A line is one command, as the JSON array of its arguments (`["org","create","--name","Acme"]`): exactly what
 * would follow `npm run -s admin --`, with no second vocabulary to learn and no shell quoting. Lines run one at a
 * time, in order (a line may depend on what an earlier one did), and each answer is written as soon as its line
 * finishes: a program can feed `--batch -` a line, read its answer and use its ids in the next line. Every line runs
 * unless `stopOnError`: a seeding script learns every failure of a run, and runs the file again with the same request
 * ids (docs/operations.md "Many commands at once").
 *
 * The batch's `--stage` is every line's: one file can seed dev, then staging, and no line can reach another stage.
 * Passwords: standard input is the batch itself (or nobody's) and nobody is prompted, so a line names an environment
 * variable holding its password (`--password-env NAME`): the password is in neither the file nor the command line.
 */
import { randomUUID } from 'node:crypto';
import type { BackOffice } from '../lambdas/back-office/back-office';
import { describeFailure, REQUEST_ID_COMMANDS, runAdminCommand, runLocalCommand, type PasswordSource, type RequestIds } from './admin-cli';
import { parseAdminArgs, UsageError } from './admin-args';

export interface BatchOptions {
  /** Every line runs on this stage (none: the local stack). */
  readonly stage?: string;
  /** Stop after the first line that fails (the lines after it are not read). */
  readonly stopOnError?: boolean;
}

/** One line's answer: its number in the input (from 1; blank lines have none), its exit status, and its result or error. */
export interface BatchAnswer {
  readonly line: number;
  /** What the command alone would have exited with: 0, 1 (it failed), 2 (usage). */
  readonly status: 0 | 1 | 2;
  readonly result?: unknown;
  readonly error?: { readonly code: string; readonly message: string };
  /** The request id the command ran under (given with --request-id, or made for it): run the line again with it. */
  readonly request_id?: string;
}

export interface BatchRun {
  /** The back office, asked for on the first line that needs it (the local `ticket bridge` switch does not). */
  office(): BackOffice | Promise<BackOffice>;
  /** Called once per answer, in order; awaited before the next line runs. */
  write(answer: BatchAnswer): void | Promise<void>;
  passwords?: PasswordSource;
}

/** Flags of the batch's own command line, never of a line. */
const BATCH_FLAGS = ['stage', 'batch', 'stop-on-error', 'help'] as const;

/** A line's password: the environment variable it names (`--password-env NAME`), never standard input or a prompt. */
export function environmentPasswords(env: NodeJS.ProcessEnv = process.env): PasswordSource {
  return {
    async read(from, variable) {
      if (from !== 'env' || variable === undefined) {
        throw new UsageError('In a batch a password comes from an environment variable: --password-env NAME (standard input is not read for it, and nobody is prompted)');
      }
      const password = env[variable];
      if (!password) throw new UsageError(`The environment variable ${variable} (--password-env) is not set`);
      return password;
    },
  };
}

/** The arguments of one line: a non-empty JSON array of strings, without the batch's own flags. */
function lineArguments(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('A batch line is a JSON array of the command\'s arguments, e.g. ["org","create","--name","Acme"]: this one is not JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((arg) => typeof arg === 'string')) {
    throw new UsageError('A batch line is a JSON array of the command\'s arguments, as strings, e.g. ["org","create","--name","Acme"]');
  }
  const { values } = parseAdminArgs(parsed);
  const own = BATCH_FLAGS.filter((flag) => values[flag] !== undefined);
  if (own.length > 0) throw new UsageError(`${own.map((flag) => `--${flag}`).join(', ')}: the batch's command line takes it, a line does not`);
  return parsed;
}

/** Run every line of `lines`; the exit status of the whole: 0 when every line succeeded, else 1. */
export async function runBatch(lines: AsyncIterable<string>, options: BatchOptions, run: BatchRun): Promise<0 | 1> {
  const passwords = run.passwords ?? environmentPasswords();
  let failed = false;
  let number = 0;
  for await (const text of lines) {
    number += 1;
    if (text.trim() === '') continue;
    const answer = await runLine(number, text, options, run, passwords);
    await run.write(answer);
    if (answer.status !== 0) {
      failed = true;
      if (options.stopOnError) break;
    }
  }
  return failed ? 1 : 0;
}

async function runLine(line: number, text: string, options: BatchOptions, run: BatchRun, passwords: PasswordSource): Promise<BatchAnswer> {
  let requestId: string | undefined;
  const requestIds: RequestIds = { create: () => randomUUID(), announce: (made) => (requestId = made) };
  try {
    const args = lineArguments(text);
    const argv = options.stage ? [...args, '--stage', options.stage] : args;
    const { values, positionals } = parseAdminArgs(argv);
    if (REQUEST_ID_COMMANDS.has(positionals.slice(0, 2).join(' '))) requestId = values['request-id'];
    const result = runLocalCommand(argv) ?? (await runAdminCommand(argv, await run.office(), passwords, requestIds));
    return { line, status: 0, result, ...(requestId && { request_id: requestId }) };
  } catch (error) {
    // The usage text belongs to the terminal: an answer carries the line's own message.
    const failure = error instanceof UsageError ? { code: 'USAGE', message: error.message } : describeFailure(error);
    return { line, status: error instanceof UsageError ? 2 : 1, error: failure, ...(requestId && { request_id: requestId }) };
  }
}
