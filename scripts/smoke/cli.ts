/**
 * `npm run smoke`: parse the options, run the checks, print the table, and
 * answer the exit status (0: every check passed or was skipped; 1: a check
 * failed; 2: the command line was wrong, nothing was sent).
 */
import { parseSmokeArgs, UsageError, USAGE } from './options';
import { formatRow, heading, summary, tableHeader } from './report';
import { failed, runSmoke, smokeChecks } from './run';

export interface SmokeIo {
  readonly out: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

export async function runSmokeCli(argv: readonly string[], io: SmokeIo): Promise<number> {
  let options;
  try {
    options = parseSmokeArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.out.write(`smoke: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    io.out.write(`${USAGE}\n`);
    return 0;
  }
  const nameWidth = Math.max(...smokeChecks(options).map((check) => check.name.length));
  io.out.write(heading(options) + tableHeader(nameWidth));
  const results = await runSmoke(options, (result) => io.out.write(formatRow(result, nameWidth)));
  io.out.write(summary(results));
  return failed(results).length > 0 ? 1 : 0;
}
