/** docs/limits-table.md's table is generated from the limits table: the two never drift apart. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';
import { renderCountersTable, renderLimitsTable, withCountersTable, withLimitsTable } from '../../../scripts/limits-doc';

describe('docs/limits-table.md', () => {
  it('is exactly what the limits table renders (run npm run docs:limits after changing a limit)', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'limits-table.md'), 'utf8');
    expect(readme).toContain(renderLimitsTable());
  });

  it('changes when a limit changes', () => {
    const changed = LIMITS.map((l) => (l.policy === 'key-minute' ? { ...l, limit: 61 } : l));
    const readme = withLimitsTable(`x\n${renderLimitsTable()}\ny`, changed);
    expect(readme).toContain('| `key-minute` | each valid API key, per minute | 61 |');
  });
});

describe('docs/limits.md', () => {
  it('holds the counters table the limits table renders (run npm run docs:limits after changing a limit)', () => {
    const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'limits.md'), 'utf8');
    expect(page).toContain(renderCountersTable());
  });

  it('shows a new quota of an item, and a changed lease map', () => {
    const changed = [
      ...LIMITS.map((l) => (l.kind === 'concurrency' && l.holder === 'key' && l.policy === 'ticket-concurrency' ? { ...l, limit: 3 } : l)),
      { kind: 'quota' as const, policy: 'key-hour', holder: 'key' as const, windowSeconds: 3600 as const, limit: 900, covers: 'all' as const },
    ];
    const page = withCountersTable(`x\n${renderCountersTable()}\ny`, changed);
    expect(page).toContain('| key `KEY#…` | exists, not revoked | `key-minute`, `key-day`, `key-hour` | 3 slots (`ticket-concurrency`) |');
  });
});
