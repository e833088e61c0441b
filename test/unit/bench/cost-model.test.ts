/**
 * The cost model's arithmetic (bench/cost/model.ts) on fixed inputs: DynamoDB units as AWS bills them (transactions at
 * 2 units per item whatever DynamoDB Local reported, its index writes kept, refused conditions and cancelled
 * transactions billed), a call priced line by line, an idle stage from its template facts, and a month's mix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { billedMs, billedUnits, idleStageCost, mixCost, scaled, workCost, type WorkProfile } from '../../../bench/cost/model';
import { PRICES } from '../../../bench/cost/prices';
import { callProfile, runsPerMonth, stageFacts } from '../../../bench/cost/run';

describe('billedUnits', () => {
  it('keeps what DynamoDB Local reports for single writes, index writes included', () => {
    // A PutItem into a table with one index: 1 unit on the table, 1 on the index (Local reports both: 2).
    expect(billedUnits({ rcu: 0.5, wcu: 2 })).toEqual({ read: 0.5, write: 2 });
  });

  it('bills a write transaction 2 units per item, ConditionCheck included, when Local reported less', () => {
    // Three items of one size, one of them a ConditionCheck: Local reports 2, AWS bills 6.
    expect(billedUnits({ rcu: 0, wcu: 3, tx_items: 3, tx_wcu: 2 })).toEqual({ read: 0, write: 1 + 6 });
  });

  it("keeps Local's figure for a transaction when it is more (an index write, an item over 1 KB)", () => {
    // Two items, one of them indexed: table 4, index 2 (doubled) = 6 > 2 × 2.
    expect(billedUnits({ rcu: 0, wcu: 6, tx_items: 2, tx_wcu: 6 })).toEqual({ read: 0, write: 6 });
  });

  it('bills refused conditional writes and cancelled transactions, which Local reports as nothing', () => {
    expect(billedUnits({ rcu: 1, wcu: 3, failed_conditions: 2, cancelled_tx_items: 3 })).toEqual({ read: 1, write: 3 + 2 + 6 });
  });
});

describe('workCost', () => {
  const call: WorkProfile = {
    frontRequests: 1,
    lambda: { invocations: 1, msPerInvocation: 9.2, memoryMb: 512 },
    dynamo: { readUnits: 1, writeUnits: 3 },
    sqsRequests: 2,
    stepFunctionsTransitions: 4,
    kmsRequests: 1,
    logBytes: 1024 ** 3 / 1e6,
    bytesOut: 1024 ** 3 / 1e6,
    tracedRequests: 0.05,
  };

  it('prices each line from the price table, per million calls', () => {
    const perMillion = scaled(workCost(call), 1e6);
    expect(perMillion.apiGateway).toBeCloseTo(3.5, 6);
    expect(perMillion.waf).toBeCloseTo(0.6, 6);
    // 1 M requests × $0.20 + 1 M × 0.5 GB × 0.010 s (9.2 ms billed as 10) × $0.0000133334.
    expect(perMillion.lambda).toBeCloseTo(0.2 + 1e6 * 0.5 * 0.01 * 0.0000133334, 6);
    expect(perMillion.dynamodb).toBeCloseTo(0.125 + 3 * 0.625, 6);
    expect(perMillion.stepFunctions).toBeCloseTo(4 * 25, 6);
    expect(perMillion.sqs).toBeCloseTo(0.8, 6);
    expect(perMillion.kmsAndSecrets).toBeCloseTo(3, 6);
    expect(perMillion.logs).toBeCloseTo(0.5, 6);
    expect(perMillion.dataTransfer).toBeCloseTo(0.09, 6);
    expect(perMillion.xray).toBeCloseTo(0.25, 6);
    const { total, ...lines } = perMillion;
    expect(total).toBeCloseTo(Object.values(lines).reduce((a, b) => a + b, 0), 9);
  });

  it('bills Lambda by the millisecond, at least one', () => {
    expect([billedMs(0.2), billedMs(9.01), billedMs(12)]).toEqual([1, 10, 12]);
  });

  it("builds a call's profile from its endpoint-costs row, with the transaction billed as AWS does", () => {
    const profile = callProfile(
      {
        kind: 'endpoint-cost',
        scenario: 'endpoint-costs',
        route: 'player-claim',
        label: 'POST /join/{id}/claim',
        calls: 5,
        dynamo: { calls: 6, round_trips: 5, rcu: 1, wcu: 15, tx_items: 8, tx_wcu: 13, failed_conditions: 0, cancelled_tx_items: 0 },
        handler_ms: { mean: 18.4, max: 30 },
        response_bytes: 600,
        log_bytes: 500,
      },
      512,
    );
    expect(profile.dynamo).toEqual({ readUnits: 1, writeUnits: 2 + 16 });
    expect(profile.lambda).toEqual({ invocations: 1, msPerInvocation: 18.4, memoryMb: 512 });
    expect(profile.logBytes).toBe(500 + 700 + 650 + 900);
  });
});

describe('the idle stage and the mix', () => {
  it("counts a stage's priced resources in its templates and prices a month", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cost-templates-'));
    try {
      const resources = {
        Acl: { Type: 'AWS::WAFv2::WebACL', Properties: { Name: 'api', Rules: [{}, {}, {}] } },
        Key: { Type: 'AWS::KMS::Key' },
        Secret: { Type: 'AWS::SecretsManager::Secret' },
        Plain: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } },
        MathAlarm: { Type: 'AWS::CloudWatch::Alarm', Properties: { Metrics: [{ MetricStat: {} }, { MetricStat: {} }, { Expression: 'm1/m2' }] } },
        Board: { Type: 'AWS::CloudWatch::Dashboard' },
        JobsSweeperScheduleA1B2C3D4: { Type: 'AWS::Scheduler::Schedule', Properties: { ScheduleExpression: 'rate(1 minute)' } },
        Queue: { Type: 'AWS::SQS::Queue' },
        Poller: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] } } },
        Stream: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { EventSourceArn: 'arn:aws:dynamodb:…/stream/x' } },
        Table: { Type: 'AWS::DynamoDB::Table', Properties: { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } } },
      };
      writeFileSync(join(dir, 'PartnerApi-prod-Stateless.template.json'), JSON.stringify({ Resources: resources }));
      writeFileSync(join(dir, 'PartnerApi-Baseline.template.json'), JSON.stringify({ Resources: { Other: { Type: 'AWS::KMS::Key' } } }));
      const facts = stageFacts(dir, 'PartnerApi-prod-');
      expect(facts).toEqual({
        webAcls: [{ name: 'api', rules: 3 }],
        kmsKeys: 1,
        secrets: 1,
        alarmMetrics: 3,
        dashboards: 1,
        schedules: [{ name: 'JobsSweeperSchedule', runsPerMonth: 43_800 }],
        sqsEventSources: 1,
        tablesWithPitr: 1,
      });
      const run = workCost({ frontRequests: 0, lambda: { invocations: 1, msPerInvocation: 20, memoryMb: 512 }, dynamo: { readUnits: 0.5, writeUnits: 0 }, logBytes: 0 });
      const lines = idleStageCost(facts, () => run);
      const byItem = Object.fromEntries(lines.map((l) => [l.item, l.usdPerMonth]));
      expect(byItem['WAF web ACLs']).toBe(5);
      expect(byItem['WAF rules']).toBe(3);
      expect(byItem['KMS keys']).toBe(1);
      expect(byItem['Secrets Manager secrets']).toBeCloseTo(0.4, 9);
      expect(byItem['CloudWatch alarm metrics']).toBeCloseTo(0.3, 9);
      expect(byItem['CloudWatch dashboards']).toBe(3);
      expect(byItem['schedule JobsSweeperSchedule']).toBeCloseTo(43_800 * run.total, 9);
      // 5 pollers, one 20-second receive each, all month: 657,000 requests.
      expect(byItem['SQS long polls by Lambda']).toBeCloseTo(657_000 * PRICES.sqsRequest.usd, 9);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads rate() schedules', () => {
    expect([runsPerMonth('rate(1 minute)'), runsPerMonth('rate(5 minutes)'), runsPerMonth('rate(1 hour)')]).toEqual([43_800, 8_760, 730]);
    expect(() => runsPerMonth('cron(0 * * * ? *)')).toThrow(/rate/);
  });

  it('sums a month of calls per organization', () => {
    const one = workCost({ frontRequests: 1, lambda: { invocations: 1, msPerInvocation: 1, memoryMb: 1024 }, dynamo: { readUnits: 0, writeUnits: 1 }, logBytes: 0 });
    const { perOrganization, lines } = mixCost(
      [
        { work: 'a', perOrganizationPerMonth: 100, why: '' },
        { work: 'b', perOrganizationPerMonth: 10, why: '' },
      ],
      (work) => (work === 'a' ? one : scaled(one, 2)),
    );
    expect(perOrganization.total).toBeCloseTo(120 * one.total, 12);
    expect(lines.map((l) => l.count)).toEqual([100, 10]);
  });
});
