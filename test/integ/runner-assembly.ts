/**
 * The integ app's cloud assembly, made fit for integ-runner and for a snapshot committed from any clone. Two steps
 * after `app.synth()`, on the app's own output directory:
 *
 * 1. Metadata traces name files relative to the repository. aws-cdk-lib records a stack trace with every
 *    acknowledged cdk-nag finding (lib/compliance/nag-acknowledgments.ts), whatever the context says, and the
 *    trace names absolute paths: the stacks' `*.metadata.json` would differ between two clones.
 *
 * 2. The schema is labeled 53, for as long as integ-runner cannot read newer. integ-runner 2.197.10, the newest
 *    published, reads cloud assemblies of schema 53 at most (its bundled toolkit refuses a newer major: "Cloud
 *    assembly schema version mismatch"); aws-cdk-lib 2.276 writes 55. What 54 and 55 add over 53 is additive only
 *    (compared with the schema integ-runner bundles): a metadata entry type, `aws:cdk:propertyAssignment` (written in
 *    CDK debug mode only), and `allowDeleteFailures` on a test case. An assembly using neither is a valid schema 53
 *    assembly, so it is labeled 53 (manifest.json, integ.json, the asset manifests, cdk.out); one using either, or a
 *    schema past 55 (check its additions first), is refused. Delete this step once integ-runner reads schema 55.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/constructs/service-function';

export const RUNNER_SCHEMA_MAJOR = 53;
/** The newest schema whose additions over RUNNER_SCHEMA_MAJOR were checked (above). */
const CHECKED_SCHEMA_MAJOR = 55;

export function prepareForIntegRunner(outdir: string): void {
  const files = readdirSync(outdir);
  const text = (file: string) => readFileSync(join(outdir, file), 'utf8');
  for (const file of files.filter((name) => name.endsWith('.metadata.json'))) {
    writeFileSync(join(outdir, file), text(file).split(PROJECT_ROOT).join(''));
  }

  const major = Number(String((JSON.parse(text('manifest.json')) as { version: string }).version).split('.')[0]);
  if (major <= RUNNER_SCHEMA_MAJOR) return;
  if (major > CHECKED_SCHEMA_MAJOR) {
    throw new Error(`Cloud assembly schema ${major}: check what it adds over ${RUNNER_SCHEMA_MAJOR} before labeling it for integ-runner (test/integ/runner-assembly.ts)`);
  }
  const usesAdditions =
    files.some((file) => file.endsWith('.metadata.json') && text(file).includes('"aws:cdk:propertyAssignment"')) || text('integ.json').includes('"allowDeleteFailures"');
  if (usesAdditions) throw new Error(`The assembly uses what schema ${RUNNER_SCHEMA_MAJOR} lacks (aws:cdk:propertyAssignment, allowDeleteFailures): integ-runner cannot read it`);
  for (const file of files.filter((name) => ['manifest.json', 'integ.json', 'cdk.out'].includes(name) || name.endsWith('.assets.json'))) {
    writeFileSync(join(outdir, file), JSON.stringify({ ...JSON.parse(text(file)), version: `${RUNNER_SCHEMA_MAJOR}.0.0` }, undefined, 2));
  }
}
