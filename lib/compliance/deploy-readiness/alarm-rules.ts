/**
 * CloudWatch alarms on metric math: at most 10 metrics, exactly one returned series, and every
 * metric an expression reads wrapped in FILL. CloudWatch refuses the first two at deploy time; the
 * third is this project's rule: metric math yields no value for a period where any operand has
 * none, so `a + b` without FILL is missing exactly in the periods where only some of the metrics
 * have data, the periods the alarm is for; with TreatMissingData notBreaching it stays OK.
 */
import { defineRule, isObject, resourcesOf, type Problem } from './rule';

/** A metric math alarm may use up to 10 metrics. */
export const MAX_ALARM_METRICS = 10;

type MetricEntry = Readonly<Record<string, unknown>>;

// Create a CloudWatch alarm based on a metric math expression:
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Create-alarm-on-metric-math-expression.html
export const alarmMetricMath = defineRule({
  id: 'alarm-metric-math',
  title: 'Metric math alarms: at most 10 metrics, one returned series, every metric filled',
  docs: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Create-alarm-on-metric-math-expression.html',
  problems: (stacks) =>
    resourcesOf(stacks, 'AWS::CloudWatch::Alarm').flatMap(({ stack, logicalId, resource }): Problem[] => {
      const metrics = resource.Properties?.Metrics;
      if (!Array.isArray(metrics)) return [];
      const entries = metrics.filter(isObject);
      const at = { stackName: stack.stackName, logicalId };
      const problems: Problem[] = [];
      const metricIds = new Set(entries.filter((entry) => entry.MetricStat !== undefined).map((entry) => String(entry.Id)));
      if (metricIds.size > MAX_ALARM_METRICS) {
        problems.push({ ...at, locations: ['Properties/Metrics'], problem: `${metricIds.size} metrics, above the ${MAX_ALARM_METRICS} a metric math alarm may use`, fix: 'Alarm on fewer metrics, or split the alarm and combine the parts with a composite alarm.' });
      }
      const returnProblem = returnDataProblem(entries);
      if (returnProblem) {
        problems.push({ ...at, locations: ['Properties/Metrics'], problem: returnProblem, fix: 'Set ReturnData true on the one expression the alarm watches and false on every other entry.' });
      }
      entries.forEach((entry, i) => {
        if (typeof entry.Expression !== 'string') return;
        const unfilled = unfilledReferences(entry.Expression, metricIds);
        if (unfilled.length === 0) return;
        problems.push({
          ...at,
          locations: [`Properties/Metrics/${i}/Expression`],
          problem: `expression ${JSON.stringify(entry.Expression)} reads ${unfilled.join(', ')} without FILL: no value in a period where any of them has none, so the alarm misses exactly the periods where only some metrics have data`,
          fix: `Wrap every metric in FILL, e.g. ${unfilled.map((id) => `FILL(${id}, 0)`).join(' + ')}.`,
        });
      });
      return problems;
    }),
});

/** Exactly one entry returns data: ReturnData true on one entry, or left unset only on the single expression. */
function returnDataProblem(entries: readonly MetricEntry[]): string | undefined {
  const explicit = entries.filter((entry) => entry.ReturnData === true || entry.ReturnData === 'true');
  const unset = entries.filter((entry) => entry.ReturnData === undefined);
  const expressions = entries.filter((entry) => entry.Expression !== undefined);
  if (explicit.length === 1 && unset.length === 0) return undefined;
  if (explicit.length === 0 && unset.length === 1 && expressions.length === 1 && unset[0] === expressions[0]) return undefined;
  const returning = [...explicit, ...unset].map((entry) => String(entry.Id));
  return returning.length === 0
    ? 'no entry returns data (ReturnData true on none)'
    : `${returning.length} entries may return data (${returning.join(', ')}): ReturnData true or unset; an alarm watches exactly one`;
}

/**
 * The metric ids an expression reads outside `FILL(<id>, …)`, each once; `METRICS()` outside FILL
 * reads them all. Quoted text (SEARCH filters, labels) is not read. Ids of other expressions are
 * not checked: their own terms are.
 */
export function unfilledReferences(expression: string, metricIds: ReadonlySet<string>): string[] {
  const code = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, (quoted) => ' '.repeat(quoted.length));
  const unfilled = new Set<string>();
  for (const match of code.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    const name = match[0];
    const before = code.slice(0, match.index);
    const after = code.slice(match.index + name.length);
    const filled = /FILL\s*\(\s*$/.test(before) && /^\s*,/.test(after);
    if (metricIds.has(name) && !filled) unfilled.add(name);
    if (name === 'METRICS' && /^\s*\(/.test(after) && !/FILL\s*\(\s*$/.test(before) && metricIds.size > 0) unfilled.add('METRICS()');
  }
  return [...unfilled];
}
