/**
 * `npm run cost` as a fresh clone runs it: offline, on the committed bench run (bench/results.json) and the prod
 * stage's templates (synthesized here without bundling, as its own synthesis does), printing every table and writing
 * the JSON. Its arithmetic is test/unit/bench/cost-model.test.ts's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../lib/constructs/service-function';
import type { EndpointCostRow } from '../../bench/scenario';
import { synthStage } from './support';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'partner-api-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run cost', () => {
  it('prices every measured operation, the deliveries, the peers, the idle stage and the mix, and writes them', async () => {
    // Prepare: the prod stage's templates, as `cdk synth` writes them.
    const stage = synthStage({ stage: 'prod' });
    writeFileSync(join(dir, 'PartnerApi-prod-Stateful.template.json'), JSON.stringify(stage.statefulTemplate.toJSON()));
    writeFileSync(join(dir, 'PartnerApi-prod-Stateless.template.json'), JSON.stringify(stage.statelessTemplate.toJSON()));
    const out = join(dir, 'cost.json');

    // Act
    const { stdout } = await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['bench/cost/run.ts', '--templates', dir, '--results', 'bench/results.json', '--out', out], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_PROFILE: '' },
    });

    // Assess: the tables are printed, and the file holds a price for every operation the bench measured.
    for (const title of ['Per million calls, USD', 'Peers, per million', 'The prod stage per month with no traffic', "A typical partner's month"]) expect(stdout).toContain(title);
    const measured = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'results.json'), 'utf8')) as { endpoint_costs: EndpointCostRow[] }).endpoint_costs;
    const cost = JSON.parse(readFileSync(out, 'utf8')) as { per_million: Record<string, { total: number }>; idle: { usd_per_month: number }; mix: { usd_per_organization: number } };
    expect(measured.length).toBeGreaterThan(20);
    for (const row of measured) expect(cost.per_million[row.route]?.total, row.route).toBeGreaterThan(0);
    expect(cost.per_million['webhook:first-time success'].total).toBeGreaterThan(0);
    expect(cost.idle.usd_per_month).toBeGreaterThan(0);
    expect(cost.mix.usd_per_organization).toBeGreaterThan(0);
  }, 300_000);
});
