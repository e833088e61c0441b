/**
 * What a deploy-readiness rule is, what it reads and what it reports. The rules read synthesized
 * CloudFormation templates (plain JSON, intrinsics unresolved) because that is what AWS receives:
 * a limit checked on constructs would miss whatever CDK adds on the way to the template.
 *
 * A finding's message carries everything a reader needs on one line: the rule id, the stack and
 * logical id, what is wrong, and the AWS page the rule encodes; `fix` says what to do.
 */

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly DeletionPolicy?: unknown;
  readonly UpdateReplacePolicy?: unknown;
  readonly Metadata?: unknown;
}

export interface CfnOutput {
  readonly Value?: unknown;
  readonly Export?: { readonly Name?: unknown };
}

export interface CfnParameter {
  readonly Type: string;
  readonly AllowedValues?: readonly unknown[];
  readonly MaxLength?: number | string;
}

export interface CfnTemplate {
  readonly Resources?: Readonly<Record<string, CfnResource>>;
  readonly Outputs?: Readonly<Record<string, CfnOutput>>;
  readonly Parameters?: Readonly<Record<string, CfnParameter>>;
  readonly Mappings?: Readonly<Record<string, unknown>>;
  readonly [section: string]: unknown;
}

export interface StackTemplate {
  readonly stackName: string;
  readonly template: CfnTemplate;
  /** Size of the template file as written; when absent, CDK's own serialization (one-space indent) is measured. */
  readonly templateBytes?: number;
}

export interface DeployFinding {
  readonly ruleId: string;
  readonly stackName: string;
  /** The resource's or output's logical id; absent when the finding is about the stack itself. */
  readonly logicalId?: string;
  /** Where inside the resource (or template), as `/`-separated paths, e.g. `Properties/Rules/3/Action`. */
  readonly locations: readonly string[];
  /** `[rule id] stack/logical id: what is wrong (AWS page)`. */
  readonly message: string;
  /** What to do about it. */
  readonly fix: string;
}

export interface DeployRule {
  readonly id: string;
  readonly title: string;
  /** The AWS documentation page whose limit or behaviour the rule encodes. */
  readonly docs: string;
  check(stacks: readonly StackTemplate[]): DeployFinding[];
}

/** One problem a rule found, before it becomes a finding with the rule's id and page. */
export interface Problem {
  readonly stackName: string;
  readonly logicalId?: string;
  readonly locations?: readonly string[];
  readonly problem: string;
  readonly fix: string;
}

/** A rule from its id, title, page and a function listing its problems. */
export function defineRule(spec: {
  readonly id: string;
  readonly title: string;
  readonly docs: string;
  readonly problems: (stacks: readonly StackTemplate[]) => Problem[];
}): DeployRule {
  return {
    id: spec.id,
    title: spec.title,
    docs: spec.docs,
    check: (stacks) =>
      spec.problems(stacks).map((found) => {
        const where = found.logicalId === undefined ? found.stackName : `${found.stackName}/${found.logicalId}`;
        return {
          ruleId: spec.id,
          stackName: found.stackName,
          ...(found.logicalId === undefined ? {} : { logicalId: found.logicalId }),
          locations: found.locations ?? [],
          message: `[${spec.id}] ${where}: ${found.problem} (${spec.docs})`,
          fix: found.fix,
        };
      }),
  };
}

/** A resource of a stack with its logical id, as the rules walk them. */
export interface LocatedResource {
  readonly stack: StackTemplate;
  readonly logicalId: string;
  readonly resource: CfnResource;
}

/** Every resource of the given types (all resources when no type is given), stack by stack. */
export function resourcesOf(stacks: readonly StackTemplate[], ...types: readonly string[]): LocatedResource[] {
  return stacks.flatMap((stack) =>
    Object.entries(stack.template.Resources ?? {})
      .filter(([, resource]) => types.length === 0 || types.includes(resource.Type))
      .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
  );
}

/** A value found inside a template, with its `/`-separated path. */
export interface Found {
  readonly value: unknown;
  readonly path: string;
}

/** Every value held under `key` anywhere inside `value` (nested occurrences included), in document order. */
export function findKey(value: unknown, key: string, path: string): Found[] {
  const found: Found[] = [];
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${at}/${i}`));
    } else if (isObject(node)) {
      for (const [name, child] of Object.entries(node)) {
        if (name === key) found.push({ value: child, path: `${at}/${name}` });
        visit(child, `${at}/${name}`);
      }
    }
  };
  visit(value, path);
  return found;
}

export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{ "Ref": … }` or `{ "Fn::…": … }`: a value CloudFormation computes at deploy time. */
export function isIntrinsic(value: unknown): value is Readonly<Record<string, unknown>> {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'));
}

/** The function name and argument of an intrinsic. */
export function intrinsicOf(value: Readonly<Record<string, unknown>>): [string, unknown] {
  const [entry] = Object.entries(value);
  return entry;
}
