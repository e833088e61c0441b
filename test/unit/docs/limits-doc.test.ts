/** docs/limits-table.md's table is generated from the limits table: the two never drift apart. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';
import { renderLimitsTable, withLimitsTable } from '../../../scripts/limits-doc';

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
