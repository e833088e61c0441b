/**
 * Where the docs quote a limit by its policy and a number (`` `webhook-create-hour` 5 ``), the number is the limits
 * table's: a row's value changed in lambdas/shared/limits/limits-table.ts fails here until the prose follows, as the
 * rendered tables (npm run docs:limits) fail theirs. docs/performance.md is left out: its scenarios run on limits of
 * their own (a hot organization at `organization-minute` 50).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';

const DOCS = ['README.md', 'docs/webhooks.md', 'docs/web-settings.md', 'docs/infrastructure.md', 'docs/edge-protection.md', 'docs/limits.md', 'docs/player-site.md'];

/** Every limit a policy has (a concurrency policy may have one per holder). */
const valuesOf = (policy: string) => LIMITS.filter((limit) => limit.policy === policy).map((limit) => limit.limit);

/** `` `policy` N `` quotes of a known policy: the number written right after it (thousands separators allowed). */
function quotes(text: string): Array<{ policy: string; value: number; at: string }> {
  const found: Array<{ policy: string; value: number; at: string }> = [];
  for (const match of text.matchAll(/`([a-z][a-z-]+)` (\d[\d,]*)(?![\d.])/g)) {
    if (valuesOf(match[1]).length === 0) continue;
    found.push({ policy: match[1], value: Number(match[2].replace(/,/g, '')), at: text.slice(Math.max(0, (match.index ?? 0) - 40), (match.index ?? 0) + match[0].length) });
  }
  return found;
}

describe('limits quoted in the docs', () => {
  it.each(DOCS)('%s quotes each policy with the limits table’s value', (file) => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8');
    for (const quote of quotes(text)) expect(valuesOf(quote.policy), `${file}: …${quote.at}`).toContain(quote.value);
  });

  it('finds the quotes it checks (the settings change rows in two docs)', () => {
    const text = ['docs/webhooks.md', 'docs/web-settings.md'].map((file) => readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8')).join('\n');
    expect(quotes(text).filter((quote) => quote.policy === 'settings-change-day')).toHaveLength(2);
  });
});
