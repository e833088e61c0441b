/** Entry point of `npm run -s admin`: see admin-cli.ts. */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createBackOffice, type BackOffice } from '../lambdas/back-office/back-office';
import { createDocumentClient } from '../lambdas/shared/storage/dynamo-client';
import { physicalTableName } from '../lambdas/shared/storage/table-definitions';
import { localDynamoClient } from '../local/dynamo-local';
import { LOCAL_STATE_FILE } from '../local/state-file';
import { describeFailure, parseAdminArgs, runAdminCommand, runLocalCommand, USAGE, UsageError, type PasswordSource, type RequestIds } from './admin-cli';

class NotRunning extends Error {
  readonly code = 'LOCAL_STACK_NOT_RUNNING';
}

function backOffice(stage: string | undefined): BackOffice {
  if (stage) {
    return createBackOffice(createDocumentClient(new DynamoDBClient({})), physicalTableName(stage, 'access'), undefined, physicalTableName(stage, 'domain'));
  }
  if (!existsSync(LOCAL_STATE_FILE)) throw new NotRunning('No local stack found: run `npm start` first, or pass --stage <name>');
  const state = JSON.parse(readFileSync(LOCAL_STATE_FILE, 'utf8')) as { dynamoEndpoint: string; tables: { access: string; domain: string } };
  return createBackOffice(createDocumentClient(localDynamoClient(state.dynamoEndpoint)), state.tables.access, undefined, state.tables.domain);
}

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
    process.stderr.write(question);
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

async function main(argv: string[]): Promise<number> {
  try {
    const { values } = parseAdminArgs(argv);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!values.stage && !existsSync(LOCAL_STATE_FILE)) throw new NotRunning('No local stack found: run `npm start` first, or pass --stage <name>');
    const result = runLocalCommand(argv) ?? (await runAdminCommand(argv, backOffice(values.stage), PASSWORDS, REQUEST_IDS));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const failure =
      error instanceof NotRunning ? { code: error.code, message: error.message } : describeFailure(error);
    if ((error as { name?: string })?.name === 'ECONNREFUSED' || (error as { code?: string })?.code === 'ECONNREFUSED') {
      failure.code = 'LOCAL_STACK_NOT_RUNNING';
      failure.message = 'The local stack does not answer: run `npm start` first, or pass --stage <name>';
    }
    process.stderr.write(`${JSON.stringify(failure)}\n`);
    return failure.code === 'USAGE' ? 2 : 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
