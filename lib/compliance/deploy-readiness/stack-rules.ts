/**
 * Whole-stack rules: CloudFormation's template quotas, deletion policies that survive a failed
 * first deploy, and cross-stack references that freeze the exporting stack. Each is refused or
 * hurts only at deploy time: a template over a quota is rejected, a retained resource makes the
 * retry fail with "already exists", an import blocks every later change of its export.
 */
import { defineRule, findKey, isObject, resourcesOf, type Problem, type StackTemplate } from './rule';

/** CloudFormation quota: 500 resources per stack. */
export const CLOUDFORMATION_RESOURCES_QUOTA = 500;
/**
 * Reported above 400: a stack this close to the quota cannot take a new feature's resources,
 * and moving resources between stacks later means replacing them (custom names included).
 */
export const MAX_STACK_RESOURCES = 400;
export const MAX_STACK_OUTPUTS = 200;
export const MAX_STACK_PARAMETERS = 200;
export const MAX_STACK_MAPPINGS = 200;
/** Template body in an S3 object (the CDK CLI uploads templates there): 1 MB. */
export const MAX_TEMPLATE_BYTES = 1_000_000;

// CloudFormation quotas (resources, outputs, parameters, mappings, template body size):
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html
export const stackSize = defineRule({
  id: 'stack-size',
  title: 'Each stack stays within CloudFormation’s template quotas',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html',
  problems: (stacks) =>
    stacks.flatMap((stack): Problem[] => {
      const problems: Problem[] = [];
      const sections: readonly [string, number, string][] = [
        ['Resources', MAX_STACK_RESOURCES, `resources, above the ${MAX_STACK_RESOURCES} this project allows (quota ${CLOUDFORMATION_RESOURCES_QUOTA}; the rest is room to grow)`],
        ['Outputs', MAX_STACK_OUTPUTS, `outputs, above the quota of ${MAX_STACK_OUTPUTS}`],
        ['Parameters', MAX_STACK_PARAMETERS, `parameters, above the quota of ${MAX_STACK_PARAMETERS}`],
        ['Mappings', MAX_STACK_MAPPINGS, `mappings, above the quota of ${MAX_STACK_MAPPINGS}`],
      ];
      for (const [section, max, what] of sections) {
        const value = stack.template[section];
        const count = isObject(value) ? Object.keys(value).length : 0;
        if (count > max) problems.push({ stackName: stack.stackName, locations: [section], problem: `${count} ${what}`, fix: 'Split the stack along a boundary that does not move stateful resources.' });
      }
      const bytes = templateBytes(stack);
      if (bytes > MAX_TEMPLATE_BYTES) {
        problems.push({ stackName: stack.stackName, locations: [], problem: `template of ${bytes} bytes, above ${MAX_TEMPLATE_BYTES}`, fix: 'Split the stack, or shrink what repeats (inline policies, dashboard bodies).' });
      }
      return problems;
    }),
});

function templateBytes(stack: StackTemplate): number {
  return stack.templateBytes ?? Buffer.byteLength(JSON.stringify(stack.template, undefined, 1), 'utf8');
}

// DeletionPolicy attribute (Retain applies when a stack's creation rolls back; RetainExceptOnCreate does not):
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-deletionpolicy.html
export const noRetainOnCreate = defineRule({
  id: 'no-retain-on-create',
  title: 'Retained resources use RetainExceptOnCreate',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-deletionpolicy.html',
  problems: (stacks) =>
    resourcesOf(stacks)
      .filter(({ resource }) => resource.DeletionPolicy === 'Retain')
      .map(({ stack, logicalId, resource }) => ({
        stackName: stack.stackName,
        logicalId,
        locations: ['DeletionPolicy'],
        problem: `${resource.Type} has DeletionPolicy Retain, which also applies when the stack's creation rolls back: a failed first deploy leaves it behind, and the retry fails with "already exists" when it has a custom name`,
        fix: 'Use RetainExceptOnCreate (CDK RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE); UpdateReplacePolicy may stay Retain.',
      })),
});

// Exporting stack output values (an export in use cannot be changed or deleted):
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-exports.html
export const noStrongCrossStackReference = defineRule({
  id: 'no-strong-cross-stack-reference',
  title: 'No Fn::ImportValue and no exported outputs',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-exports.html',
  problems: (stacks) =>
    stacks.flatMap((stack): Problem[] => {
      const fix =
        'Pass the value weakly: a name the consumer can rebuild from the stage (and Stack.formatArn), or an SSM parameter it reads, ' +
        'instead of a CDK cross-stack reference (which exports and imports).';
      // Anywhere in the template, one finding per resource or output importing (or per other section).
      const imports = new Map<string, { logicalId?: string; locations: string[]; names: Set<string> }>();
      for (const { value, path } of findKey(stack.template, 'Fn::ImportValue', '')) {
        const [section, holder, ...inside] = path.slice(1).split('/');
        const logicalId = section === 'Resources' || section === 'Outputs' ? holder : undefined;
        const key = logicalId === undefined ? section : `${section}/${logicalId}`;
        const entry = imports.get(key) ?? { ...(logicalId === undefined ? {} : { logicalId }), locations: [], names: new Set<string>() };
        // Locations inside a resource are relative to it, as in every other finding.
        entry.locations.push(section === 'Resources' ? inside.join('/') : path.slice(1));
        entry.names.add(typeof value === 'string' ? value : JSON.stringify(value));
        imports.set(key, entry);
      }
      const importing = [...imports.values()].map(({ logicalId, locations, names }): Problem => ({
        stackName: stack.stackName,
        ...(logicalId === undefined ? {} : { logicalId }),
        locations,
        problem: `imports ${[...names].join(', ')}: while it does, the exporting stack cannot change or delete those exports ("Export … cannot be deleted as it is in use")`,
        fix,
      }));
      const exports = Object.entries(stack.template.Outputs ?? {}).flatMap(([outputId, output]): Problem[] =>
        output.Export === undefined
          ? []
          : [
              {
                stackName: stack.stackName,
                logicalId: outputId,
                locations: [`Outputs/${outputId}/Export`],
                problem: `output exports ${typeof output.Export.Name === 'string' ? output.Export.Name : JSON.stringify(output.Export.Name)}: any stack importing it blocks its every later change`,
                fix,
              },
            ],
      );
      return [...importing, ...exports];
    }),
});
