/**
 * Physical names: every name the templates choose must belong to exactly one stage, so no two
 * stages (and no two stacks of one synthesis) can ever claim the same name in an account and
 * Region; and secret names must not look like the random suffix Secrets Manager appends.
 *
 * A stage is read from its stack's name: `PartnerApi-<stage>-Stateful` and
 * `PartnerApi-<stage>-Stateless`, and `PartnerApi-Baseline` for the account-level stack (token
 * `baseline`). A name belongs to its stage when it holds the stage token `partner-api-<stage>` or
 * `partner-api/<stage>` followed by the end of the name or by a character no stage name has: then
 * stage `dev` cannot produce `partner-api-devx…`, and no stage holds another stage's token.
 * Which property holds a type's name, and its length limit, is declared in ../physical-names.ts;
 * the stage name pattern and the reserved names in lib/config/stage-config.ts.
 */
import { BASELINE_STACK_NAME } from '../../baseline-stack';
import { RESERVED_STAGE_NAMES, STAGE_NAME_PATTERN } from '../../config/stage-config';
import { ACCOUNT_WIDE_NAME_TYPES, NOT_PHYSICAL_NAMES, PHYSICAL_NAME_PROPERTIES, nameScopeOf } from '../physical-names';
import { subParts } from './intrinsics';
import { defineRule, intrinsicOf, isIntrinsic, isObject, resourcesOf, type LocatedResource, type Problem } from './rule';

/** The token the account-level stack's names carry (`partner-api-baseline-…`, `/partner-api/baseline/…`). */
export const BASELINE_TOKEN = 'baseline';
const STAGE_STACK_NAME = /^PartnerApi-(.*)-(?:Stateful|Stateless)$/;

export type StackOwner =
  | { readonly kind: 'stage'; readonly token: string }
  /** A stack of the service whose stage part cannot be a stage. */
  | { readonly kind: 'invalid'; readonly problem: string }
  /** A stack not named like the service's: its names cannot be attributed to a stage. */
  | { readonly kind: 'unknown' };

/** Which stage (or the baseline) a stack's names belong to, from the stack's name. */
export function ownerOfStack(stackName: string): StackOwner {
  if (stackName === BASELINE_STACK_NAME) return { kind: 'stage', token: BASELINE_TOKEN };
  const stage = STAGE_STACK_NAME.exec(stackName)?.[1];
  if (stage === undefined) {
    return stackName.startsWith('PartnerApi-')
      ? { kind: 'invalid', problem: `stack name ${stackName} is neither PartnerApi-<stage>-Stateful, PartnerApi-<stage>-Stateless nor ${BASELINE_STACK_NAME}` }
      : { kind: 'unknown' };
  }
  if (RESERVED_STAGE_NAMES.includes(stage)) return { kind: 'invalid', problem: `stage name ${JSON.stringify(stage)} is reserved (${BASELINE_TOKEN} is the account-level stack ${BASELINE_STACK_NAME}'s token)` };
  if (!STAGE_NAME_PATTERN.test(stage)) return { kind: 'invalid', problem: `stage name ${JSON.stringify(stage)} does not match ${STAGE_NAME_PATTERN.source}` };
  return { kind: 'stage', token: stage };
}

/** A name as literal text and parts resolved only at deploy time (`null`), adjacent literals merged. */
export type NameSegments = readonly (string | null)[];

/** The segments of a name: a string, or the literal and computed parts of Fn::Join / Fn::Sub; undefined for a plain reference. */
export function nameSegments(value: unknown): NameSegments | undefined {
  if (typeof value === 'string') return [value];
  if (!isIntrinsic(value)) return undefined;
  const [fn, argument] = intrinsicOf(value);
  const parts: (string | null)[] = [];
  const addValue = (part: unknown) => parts.push(...(typeof part === 'string' ? [part] : (nameSegments(part) ?? [null])));
  if (fn === 'Fn::Join' && Array.isArray(argument) && typeof argument[0] === 'string') {
    const [delimiter, list] = argument as [string, unknown];
    if (!Array.isArray(list)) return [null];
    list.forEach((part: unknown, i) => {
      if (i > 0) parts.push(delimiter);
      addValue(part);
    });
  } else if (fn === 'Fn::Sub') {
    const [template, variables] = typeof argument === 'string' ? [argument, {}] : Array.isArray(argument) ? argument : [undefined, {}];
    if (typeof template !== 'string') return [null];
    for (const part of subParts(template)) {
      if (part.kind === 'literal') parts.push(part.text);
      else if (isObject(variables) && part.name in variables) addValue(variables[part.name]);
      else parts.push(null);
    }
  } else {
    return undefined;
  }
  return mergeLiterals(parts);
}

function mergeLiterals(parts: readonly (string | null)[]): NameSegments {
  const merged: (string | null)[] = [];
  for (const part of parts) {
    const last = merged.length - 1;
    if (part !== null && last >= 0 && typeof merged[last] === 'string') merged[last] = `${merged[last]}${part}`;
    else if (part !== '') merged.push(part);
  }
  return merged;
}

/** Stage tokens a name holds, each with whether what follows it is known to end it (a non-[a-z0-9] character or the name's end). */
export function stageTokensOf(segments: NameSegments): { readonly stage: string; readonly bounded: boolean }[] {
  return segments.flatMap((segment, k) => {
    if (segment === null) return [];
    return [...segment.matchAll(/partner-api[-/]([a-z0-9]+)/g)].map((match) => {
      const end = match.index + match[0].length;
      return { stage: match[1], bounded: end < segment.length || k === segments.length - 1 };
    });
  });
}

/** How a name fails to belong to its stage, if it does. */
export function stageClaimProblem(segments: NameSegments, stage: string): string | undefined {
  const tokens = stageTokensOf(segments);
  const foreign = [...new Set(tokens.filter((token) => token.bounded && token.stage !== stage).map((token) => token.stage))];
  if (foreign.length > 0) return `holds the token of stage ${foreign.join(', ')}, not only its own (${stage})`;
  if (tokens.some((token) => token.bounded && token.stage === stage)) return undefined;
  return `holds no stage token partner-api-${stage} or partner-api/${stage} followed by the end of the name or a character other than [a-z0-9]`;
}

/** Whether a template value refers to the Region (`Ref: AWS::Region`, or `${AWS::Region}` in a Fn::Sub). */
export function referencesRegion(value: unknown): boolean {
  if (typeof value === 'string') return false;
  if (Array.isArray(value)) return value.some(referencesRegion);
  if (!isObject(value)) return false;
  if (value.Ref === 'AWS::Region') return true;
  const sub = value['Fn::Sub'];
  const template = typeof sub === 'string' ? sub : Array.isArray(sub) && typeof sub[0] === 'string' ? sub[0] : undefined;
  if (template?.includes('${AWS::Region}')) return true;
  return Object.values(value).some(referencesRegion);
}

function literalLength(segments: NameSegments): number {
  return segments.reduce((total, segment) => total + (segment === null ? 0 : [...segment].length), 0);
}

function showName(segments: NameSegments): string {
  return JSON.stringify(segments.map((segment) => segment ?? '${…}').join(''));
}

interface ChosenName {
  readonly located: LocatedResource;
  readonly property: string;
  readonly segments: NameSegments;
}

/** The names the templates choose for the types PHYSICAL_NAME_PROPERTIES lists. */
function chosenNames(resources: readonly LocatedResource[]): ChosenName[] {
  return resources.flatMap((located) => {
    const spec = PHYSICAL_NAME_PROPERTIES[located.resource.Type];
    const segments = spec ? nameSegments(located.resource.Properties?.[spec.property]) : undefined;
    return spec && segments ? [{ located, property: spec.property, segments }] : [];
  });
}

// Name type: custom names must be unique in the account and Region, and a custom-named resource
// cannot be replaced:
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html
export const uniquePhysicalNames = defineRule({
  id: 'unique-physical-names',
  title: 'Every physical name belongs to one stage and is claimed once',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html',
  problems: (stacks) => {
    const problems: Problem[] = [];
    const stackOwners = new Map(stacks.map((stack) => [stack.stackName, ownerOfStack(stack.stackName)]));
    for (const [stackName, owner] of stackOwners) {
      if (owner.kind === 'invalid') {
        problems.push({ stackName, locations: [], problem: owner.problem, fix: `Name stage stacks PartnerApi-<stage>-Stateful/-Stateless with a stage matching ${STAGE_NAME_PATTERN.source}, not one of ${RESERVED_STAGE_NAMES.join(', ')}.` });
      }
    }
    const resources = resourcesOf(stacks);
    const claimed = new Map<string, ChosenName>();
    for (const name of chosenNames(resources)) {
      const { located, property, segments } = name;
      const at = { stackName: located.stack.stackName, logicalId: located.logicalId, locations: [`Properties/${property}`] };
      const owner = stackOwners.get(located.stack.stackName);
      if (owner?.kind === 'stage') {
        const problem = stageClaimProblem(segments, owner.token);
        if (problem) problems.push({ ...at, problem: `name ${showName(segments)} ${problem}`, fix: `Put the stage token in the name: partner-api-${owner.token}-… (or /partner-api/${owner.token}/… for secrets and parameters).` });
      } else if (owner?.kind === 'unknown') {
        problems.push({ ...at, problem: `name ${showName(segments)} is chosen in a stack whose name says no stage`, fix: `Choose names only in PartnerApi-<stage>-Stateful/-Stateless or ${BASELINE_STACK_NAME}, or leave the name to CloudFormation.` });
      }
      const maxLength = PHYSICAL_NAME_PROPERTIES[located.resource.Type].maxLength;
      const accountWide = ACCOUNT_WIDE_NAME_TYPES[located.resource.Type];
      const holdsRegion = referencesRegion(located.resource.Properties?.[property]);
      if (accountWide && !holdsRegion) {
        problems.push({
          ...at,
          problem: `name ${showName(segments)} of ${located.resource.Type} holds no Region: IAM names are unique in the whole account, so the same stage in a second Region would fail on it`,
          fix: 'Add the Region to the name (`${Aws.REGION}`), as lib/config/service-roles.ts does, or leave the name to CloudFormation.',
        });
      }
      const length = literalLength(segments) + (accountWide && holdsRegion ? accountWide.regionBound : 0);
      if (length > maxLength) {
        problems.push({ ...at, problem: `name ${showName(segments)} has ${segments.includes(null) ? 'at least ' : ''}${length} characters, above the ${maxLength} ${located.resource.Type} allows`, fix: 'Shorten the purpose part of the name.' });
      }
      if (segments.length === 1 && segments[0] !== null) {
        const key = `${nameScopeOf(located.resource.Type)}\u0000${segments[0]}`;
        const first = claimed.get(key);
        if (first) {
          problems.push({ ...at, problem: `name ${showName(segments)} is also claimed by ${first.located.stack.stackName}/${first.located.logicalId}`, fix: 'Give each resource its own purpose in the name.' });
        } else {
          claimed.set(key, name);
        }
      }
    }
    problems.push(...unlistedNames(resources));
    return problems;
  },
});

/** Literal `…Name` properties of types ../physical-names.ts does not list: a name nobody checks. */
function unlistedNames(resources: readonly LocatedResource[]): Problem[] {
  return resources.flatMap(({ stack, logicalId, resource }): Problem[] => {
    if (PHYSICAL_NAME_PROPERTIES[resource.Type]) return [];
    const notNames = NOT_PHYSICAL_NAMES[resource.Type] ?? [];
    return Object.entries(resource.Properties ?? {})
      .filter(([property, value]) => property.endsWith('Name') && !notNames.includes(property) && nameSegments(value) !== undefined)
      .map(([property, value]) => ({
        stackName: stack.stackName,
        logicalId,
        locations: [`Properties/${property}`],
        problem: `${resource.Type} sets ${property} to ${showName(nameSegments(value) ?? [])}, a name of a type lib/compliance/physical-names.ts does not list: add it there`,
        fix: `Add ${resource.Type} to PHYSICAL_NAME_PROPERTIES in lib/compliance/physical-names.ts (or ${property} to NOT_PHYSICAL_NAMES when it names another resource).`,
      }));
  });
}

// CreateSecret: "Do not end your secret name with a hyphen followed by six characters":
// https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html
export const secretNameSuffix = defineRule({
  id: 'secret-name-suffix',
  title: 'Secret names do not end with a hyphen and six characters',
  docs: 'https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html',
  problems: (stacks) =>
    resourcesOf(stacks, 'AWS::SecretsManager::Secret').flatMap(({ stack, logicalId, resource }): Problem[] => {
      const segments = nameSegments(resource.Properties?.Name);
      const last = segments?.[segments.length - 1];
      if (typeof last !== 'string') return [];
      const characters = [...last];
      if (characters.length < 7 || characters[characters.length - 7] !== '-') return [];
      return [
        {
          stackName: stack.stackName,
          logicalId,
          locations: ['Properties/Name'],
          problem: `secret name ${showName(segments ?? [])} ends with a hyphen and six characters, like the random suffix Secrets Manager appends to the ARN: a search by partial ARN can match the wrong secret`,
          fix: 'Rename so the last hyphen is not followed by exactly six characters (e.g. record-cursor → record-cursor-key).',
        },
      ];
    }),
});
