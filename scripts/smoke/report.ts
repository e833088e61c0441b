/**
 * The smoke suite's output: a heading naming the target (the key masked), a
 * table of check / result / detail printed row by row as checks finish, each
 * further problem of a failed check on its own line, and a summary.
 */
import { maskedKey, type SmokeOptions } from './options';
import type { CheckResult } from './run';

const RESULT_LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;
const RESULT_WIDTH = 6;

export function heading(options: SmokeOptions): string {
  const lines = [`Smoke checks of ${options.baseUrl} with key ${maskedKey(options.key)}`];
  if (options.webBaseUrl) lines.push(`  web side    ${options.webBaseUrl}`);
  if (options.checkWaf) lines.push("  edge checks on: this address's requests will be refused (429) for about a minute afterwards");
  return `${lines.join('\n')}\n`;
}

export function tableHeader(nameWidth: number): string {
  return `\n${'CHECK'.padEnd(nameWidth)}  ${'RESULT'.padEnd(RESULT_WIDTH)}  DETAIL\n`;
}

export function formatRow(result: CheckResult, nameWidth: number): string {
  const [first = '', ...more] = result.details;
  const indent = ' '.repeat(nameWidth + RESULT_WIDTH + 4);
  const lines = [`${result.name.padEnd(nameWidth)}  ${RESULT_LABEL[result.status].padEnd(RESULT_WIDTH)}  ${first}`, ...more.map((detail) => `${indent}${detail}`)];
  return `${lines.join('\n')}\n`;
}

export function summary(results: readonly CheckResult[]): string {
  const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
  return `\n${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped\n`;
}
