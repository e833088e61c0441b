/**
 * The reference checker of the template schema checks: everything a template names must exist
 * in it. `Ref` names a resource, a parameter or a pseudo parameter; Fn::GetAtt (either form) and
 * Fn::Sub's `${Name.Attr}` name a resource and an attribute its type has (any attribute of a
 * custom resource); Fn::Sub's `${Name}` a variable of its own map or what Ref could name; Fn::If,
 * `Condition` and a resource's or output's Condition attribute a condition; Fn::FindInMap a
 * mapping and, when written literally, its keys; DependsOn a resource. It also holds CloudFormation's
 * rules about where functions may appear (condition functions only in Conditions, no resource in
 * a condition or a rule, nothing that depends on a resource inside Fn::ImportValue) and reports
 * circular dependencies between resources, which CloudFormation refuses before it creates anything.
 *
 * What a function produces is left to the type walker (template-types.ts): here only its names.
 */
import { resourceSpec } from './cfn-spec';
import { CONDITION_FUNCTIONS, PSEUDO_PARAMETERS, RULE_FUNCTIONS, VALUE_FUNCTIONS, asIntrinsic, type Intrinsic } from './intrinsics';
import { describeValue, indexPath, isPlainObject, keyPath, type Report } from './schema-findings';

/** The names a template declares, which references resolve against. */
export interface TemplateNames {
  /** Logical id → resource type (undefined when the resource has no valid Type). */
  readonly resources: ReadonlyMap<string, string | undefined>;
  readonly parameters: ReadonlySet<string>;
  readonly conditions: ReadonlySet<string>;
  readonly mappings: Readonly<Record<string, unknown>>;
}

type Section = 'resource' | 'output' | 'condition' | 'rule';

interface Scope {
  readonly section: Section;
  readonly logicalId: string;
  /** Resources the current resource depends on (resource section only). */
  readonly dependencies?: Set<string>;
  /** Inside Fn::ImportValue, which cannot depend on a resource of its own stack. */
  readonly importing?: boolean;
}

const SECTION_NAMES: Readonly<Record<Section, string>> = {
  resource: 'a resource property',
  output: 'an output',
  condition: 'the Conditions section',
  rule: 'the Rules section',
};

/** Condition functions, `Ref` and the value functions a condition may use (no Fn::GetAtt, no Fn::If). */
const CONDITION_SECTION_FUNCTIONS: ReadonlySet<string> = new Set(
  [...CONDITION_FUNCTIONS, ...VALUE_FUNCTIONS].filter((name) => name !== 'Fn::GetAtt' && name !== 'Fn::If'),
);

function functionsOf(section: Section): ReadonlySet<string> {
  if (section === 'rule') return RULE_FUNCTIONS;
  if (section === 'condition') return CONDITION_SECTION_FUNCTIONS;
  return VALUE_FUNCTIONS;
}

export function isCustomResourceType(type: string): boolean {
  return type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource';
}

/** Collect the names a template declares, tolerating malformed sections (the section checks report those). */
export function templateNames(template: Readonly<Record<string, unknown>>): TemplateNames {
  const section = (name: string): Readonly<Record<string, unknown>> => {
    const value = template[name];
    return isPlainObject(value) ? value : {};
  };
  const resources = new Map<string, string | undefined>();
  for (const [id, resource] of Object.entries(section('Resources'))) {
    resources.set(id, isPlainObject(resource) && typeof resource.Type === 'string' ? resource.Type : undefined);
  }
  return {
    resources,
    parameters: new Set(Object.keys(section('Parameters'))),
    conditions: new Set(Object.keys(section('Conditions'))),
    mappings: section('Mappings'),
  };
}

/** Check every reference of a template. */
export function checkReferences(template: Readonly<Record<string, unknown>>, report: Report): void {
  new ReferenceChecker(templateNames(template), report).checkTemplate(template);
}

class ReferenceChecker {
  constructor(
    private readonly names: TemplateNames,
    private readonly report: Report,
  ) {}

  public checkTemplate(template: Readonly<Record<string, unknown>>): void {
    const dependencies = new Map<string, ReadonlySet<string>>();
    for (const [id, resource] of entriesOf(template.Resources)) {
      if (!isPlainObject(resource)) continue;
      const path = keyPath('Resources', id);
      const scope: Scope = { section: 'resource', logicalId: id, dependencies: new Set() };
      for (const attribute of ['Properties', 'CreationPolicy', 'UpdatePolicy']) {
        if (resource[attribute] !== undefined) this.visit(resource[attribute], keyPath(path, attribute), scope);
      }
      this.checkDependsOn(resource.DependsOn, keyPath(path, 'DependsOn'), scope);
      if (resource.Condition !== undefined) this.checkConditionName(resource.Condition, keyPath(path, 'Condition'), scope);
      dependencies.set(id, scope.dependencies ?? new Set());
    }
    for (const [id, output] of entriesOf(template.Outputs)) {
      if (!isPlainObject(output)) continue;
      const path = keyPath('Outputs', id);
      const scope: Scope = { section: 'output', logicalId: id };
      if (output.Value !== undefined) this.visit(output.Value, keyPath(path, 'Value'), scope);
      if (output.Export !== undefined) this.visit(output.Export, keyPath(path, 'Export'), scope);
      if (output.Condition !== undefined) this.checkConditionName(output.Condition, keyPath(path, 'Condition'), scope);
    }
    for (const [id, condition] of entriesOf(template.Conditions)) {
      const path = keyPath('Conditions', id);
      const scope: Scope = { section: 'condition', logicalId: id };
      const intrinsic = asIntrinsic(condition);
      if (!(intrinsic && CONDITION_FUNCTIONS.has(intrinsic.name)) && !this.conditionReference(condition, scope)) {
        this.reference(scope, path, 'intrinsic-function', `a condition is defined by Fn::And, Fn::Equals, Fn::Not, Fn::Or or Condition, not ${describeValue(condition)}`);
      }
      this.visit(condition, path, scope);
    }
    for (const [id, rule] of entriesOf(template.Rules)) {
      if (!isPlainObject(rule)) continue;
      const path = keyPath('Rules', id);
      const scope: Scope = { section: 'rule', logicalId: id };
      if (rule.RuleCondition !== undefined) this.visit(rule.RuleCondition, keyPath(path, 'RuleCondition'), scope);
      if (rule.Assertions !== undefined) this.visit(rule.Assertions, keyPath(path, 'Assertions'), scope);
    }
    this.checkCycles(dependencies);
  }

  private reference(scope: Scope, path: string, rule: 'reference' | 'intrinsic-function', message: string): void {
    this.report({ rule, logicalId: scope.logicalId, path, message });
  }

  private visit(value: unknown, path: string, scope: Scope): void {
    if (Array.isArray(value)) {
      value.forEach((element, index) => this.visit(element, indexPath(path, index), scope));
      return;
    }
    if (!isPlainObject(value)) return;
    const intrinsic = asIntrinsic(value) ?? this.conditionReference(value, scope);
    if (intrinsic) {
      this.checkFunction(intrinsic, keyPath(path, intrinsic.name), scope);
      return;
    }
    for (const [key, child] of Object.entries(value)) this.visit(child, keyPath(path, key), scope);
  }

  /** `{ "Condition": "Name" }`, which names a condition only inside the Conditions section (elsewhere `Condition` is an ordinary key, as in an IAM statement). */
  private conditionReference(value: unknown, scope: Scope): Intrinsic | undefined {
    if (scope.section !== 'condition' || !isPlainObject(value)) return undefined;
    const keys = Object.keys(value);
    return keys.length === 1 && keys[0] === 'Condition' ? { name: 'Condition', argument: value.Condition } : undefined;
  }

  private checkFunction(intrinsic: Intrinsic, path: string, scope: Scope): void {
    const { name, argument } = intrinsic;
    if (name !== 'Condition' && !functionsOf(scope.section).has(name)) {
      const known = VALUE_FUNCTIONS.has(name) || CONDITION_FUNCTIONS.has(name) || RULE_FUNCTIONS.has(name);
      const why = CONDITION_FUNCTIONS.has(name)
        ? `${name} is a condition function: only the Conditions section and rules use it`
        : known
          ? `${name} cannot be used in ${SECTION_NAMES[scope.section]}`
          : `${name} is not an intrinsic function`;
      this.reference(scope, path, 'intrinsic-function', why);
      this.visit(argument, path, scope);
      return;
    }
    switch (name) {
      case 'Ref':
        if (typeof argument === 'string') this.checkName(argument, path, scope, 'Ref');
        else this.reference(scope, path, 'intrinsic-function', `Ref takes the name of a resource, a parameter or a pseudo parameter, not ${describeValue(argument)}`);
        return;
      case 'Condition':
        this.checkConditionName(argument, path, scope);
        return;
      case 'Fn::GetAtt':
        this.checkGetAtt(argument, path, scope);
        return;
      case 'Fn::Sub':
        this.checkSub(argument, path, scope);
        return;
      case 'Fn::If':
        if (!Array.isArray(argument) || argument.length !== 3) {
          this.reference(scope, path, 'intrinsic-function', 'Fn::If takes [condition name, value if true, value if false]');
          this.visit(argument, path, scope);
          return;
        }
        this.checkConditionName(argument[0], indexPath(path, 0), scope);
        this.visit(argument[1], indexPath(path, 1), scope);
        this.visit(argument[2], indexPath(path, 2), scope);
        return;
      case 'Fn::FindInMap':
        this.checkFindInMap(argument, path, scope);
        return;
      case 'Fn::Select':
        this.checkSelect(argument, path, scope);
        return;
      case 'Fn::ImportValue':
        this.visit(argument, path, { ...scope, importing: true });
        return;
      default:
        this.visit(argument, path, scope);
    }
  }

  /** A name that `Ref` or `${Name}` resolves: a pseudo parameter, a parameter, or (outside conditions and rules) a resource. */
  private checkName(name: string, path: string, scope: Scope, via: string): void {
    if (PSEUDO_PARAMETERS.has(name) || this.names.parameters.has(name)) return;
    if (this.names.resources.has(name)) {
      this.useResource(name, path, scope, via);
      return;
    }
    this.reference(scope, path, 'reference', `${via} names ${name}, which is no resource, parameter or pseudo parameter of this template`);
  }

  /** A reference to an existing resource: allowed in resources and outputs only, and a dependency of the resource that makes it. */
  private useResource(logicalId: string, path: string, scope: Scope, via: string): void {
    if (scope.section === 'condition' || scope.section === 'rule') {
      this.reference(scope, path, 'reference', `${via} names the resource ${logicalId}, but ${SECTION_NAMES[scope.section]} can name parameters and pseudo parameters only`);
      return;
    }
    if (scope.importing) {
      this.reference(scope, path, 'reference', `Fn::ImportValue cannot depend on a resource of its own stack, and ${via} names ${logicalId}`);
    }
    scope.dependencies?.add(logicalId);
  }

  private checkGetAtt(argument: unknown, path: string, scope: Scope): void {
    if (typeof argument === 'string') {
      const dot = argument.indexOf('.');
      if (dot > 0 && dot < argument.length - 1) {
        this.checkAttribute(argument.slice(0, dot), argument.slice(dot + 1), path, scope, 'Fn::GetAtt');
        return;
      }
    } else if (Array.isArray(argument) && argument.length === 2 && typeof argument[0] === 'string') {
      this.checkAttribute(argument[0], argument[1], path, scope, 'Fn::GetAtt');
      if (typeof argument[1] !== 'string') this.visit(argument[1], indexPath(path, 1), scope);
      return;
    }
    this.reference(scope, path, 'intrinsic-function', `Fn::GetAtt takes [logical id, attribute] or "LogicalId.Attribute", not ${describeValue(argument)}`);
  }

  private checkAttribute(logicalId: string, attribute: unknown, path: string, scope: Scope, via: string): void {
    const shown = typeof attribute === 'string' ? `${logicalId}.${attribute}` : logicalId;
    if (!this.names.resources.has(logicalId)) {
      const what = this.names.parameters.has(logicalId) || PSEUDO_PARAMETERS.has(logicalId) ? `${logicalId} is a parameter, which has no attributes` : `there is no resource ${logicalId}`;
      this.reference(scope, path, 'reference', `${via} reads ${shown}, but ${what}`);
      return;
    }
    this.useResource(logicalId, path, scope, via);
    const type = this.names.resources.get(logicalId);
    if (typeof attribute !== 'string' || type === undefined || isCustomResourceType(type)) return;
    const spec = resourceSpec(type);
    if (!spec) return; // an unknown type is reported by the section checks
    const attributes = Object.keys(spec.attributes);
    const nestedOutput = attribute.startsWith('Outputs.') && attributes.includes('Outputs');
    if (!attributes.includes(attribute) && !nestedOutput) {
      const listed = attributes.filter((name) => !name.includes('.'));
      this.reference(scope, path, 'reference', `${via} reads ${shown}, but ${type} has no attribute ${attribute} (it has ${listed.length > 0 ? listed.join(', ') : 'none'})`);
    }
  }

  private checkSub(argument: unknown, path: string, scope: Scope): void {
    let text: string;
    let variables: Readonly<Record<string, unknown>> = {};
    if (typeof argument === 'string') {
      text = argument;
    } else if (Array.isArray(argument) && argument.length === 2 && typeof argument[0] === 'string' && isPlainObject(argument[1])) {
      text = argument[0];
      variables = argument[1];
      for (const [name, value] of Object.entries(variables)) this.visit(value, keyPath(indexPath(path, 1), name), scope);
    } else {
      this.reference(scope, path, 'intrinsic-function', `Fn::Sub takes a string or [string, { variables }], not ${describeValue(argument)}`);
      this.visit(argument, path, scope);
      return;
    }
    for (const match of text.matchAll(/\$\{([^}]*)\}/g)) {
      const name = match[1];
      if (name.startsWith('!') || Object.hasOwn(variables, name)) continue; // `${!Literal}` is written out as `${Literal}`
      if (!/^[A-Za-z0-9_.:]+$/.test(name)) {
        this.reference(scope, path, 'intrinsic-function', `Fn::Sub: \${${name}} is not a variable (names hold letters, digits, _, . and : only; write \${!…} for a literal)`);
        continue;
      }
      const dot = name.indexOf('.');
      if (dot > 0) this.checkAttribute(name.slice(0, dot), name.slice(dot + 1), path, scope, `Fn::Sub \${${name}}`);
      else this.checkName(name, path, scope, `Fn::Sub \${${name}}`);
    }
  }

  private checkFindInMap(argument: unknown, path: string, scope: Scope): void {
    if (!Array.isArray(argument) || argument.length < 3 || argument.length > 4) {
      this.reference(scope, path, 'intrinsic-function', 'Fn::FindInMap takes [map name, top-level key, second-level key] (and an optional default)');
      this.visit(argument, path, scope);
      return;
    }
    argument.forEach((element, index) => {
      if (typeof element !== 'string') this.visit(element, indexPath(path, index), scope);
    });
    const [mapName, topKey, secondKey] = argument;
    if (typeof mapName !== 'string') return;
    if (!Object.hasOwn(this.names.mappings, mapName)) {
      this.reference(scope, path, 'reference', `Fn::FindInMap reads the mapping ${mapName}, which the template does not declare`);
      return;
    }
    if (argument.length === 4) return; // with a default value, a missing key is not an error
    const mapping = this.names.mappings[mapName];
    if (typeof topKey !== 'string' || !isPlainObject(mapping)) return;
    const level = mapping[topKey];
    if (!isPlainObject(level)) {
      this.reference(scope, path, 'reference', `Fn::FindInMap reads ${mapName}.${topKey}, which the mapping does not have`);
      return;
    }
    if (typeof secondKey === 'string' && !Object.hasOwn(level, secondKey)) {
      this.reference(scope, path, 'reference', `Fn::FindInMap reads ${mapName}.${topKey}.${secondKey}, which the mapping does not have`);
    }
  }

  private checkSelect(argument: unknown, path: string, scope: Scope): void {
    this.visit(argument, path, scope);
    if (!Array.isArray(argument) || argument.length !== 2) {
      this.reference(scope, path, 'intrinsic-function', 'Fn::Select takes [index, list]');
      return;
    }
    const [index, list] = argument;
    const position = typeof index === 'number' ? index : typeof index === 'string' && /^\d+$/.test(index) ? Number(index) : undefined;
    if (position !== undefined && Array.isArray(list) && position >= list.length) {
      this.reference(scope, path, 'intrinsic-function', `Fn::Select picks index ${position} of a list of ${list.length}`);
    }
  }

  private checkConditionName(name: unknown, path: string, scope: Scope): void {
    if (typeof name !== 'string') {
      this.reference(scope, path, 'intrinsic-function', `a condition is named by a string, not ${describeValue(name)}`);
    } else if (!this.names.conditions.has(name)) {
      this.reference(scope, path, 'reference', `the condition ${name} is not declared in Conditions`);
    }
  }

  private checkDependsOn(value: unknown, path: string, scope: Scope): void {
    if (value === undefined) return;
    const targets = typeof value === 'string' ? [[value, path] as const] : Array.isArray(value) ? value.map((target, index) => [target, indexPath(path, index)] as const) : undefined;
    if (!targets) {
      this.reference(scope, path, 'reference', `DependsOn takes a logical id or a list of them, not ${describeValue(value)}`);
      return;
    }
    for (const [target, targetPath] of targets) {
      if (typeof target !== 'string' || !this.names.resources.has(target)) {
        this.reference(scope, targetPath, 'reference', `DependsOn names ${typeof target === 'string' ? target : describeValue(target)}, which is no resource of this template`);
      } else {
        scope.dependencies?.add(target);
      }
    }
  }

  /** Tarjan's strongly connected components over the dependency graph: each cycle reported once, on its first resource. */
  private checkCycles(dependencies: ReadonlyMap<string, ReadonlySet<string>>): void {
    const index = new Map<string, number>();
    const lowLink = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const connect = (node: string): void => {
      index.set(node, index.size);
      lowLink.set(node, index.get(node) ?? 0);
      stack.push(node);
      onStack.add(node);
      for (const next of dependencies.get(node) ?? []) {
        if (!dependencies.has(next)) continue;
        if (!index.has(next)) {
          connect(next);
          lowLink.set(node, Math.min(lowLink.get(node) ?? 0, lowLink.get(next) ?? 0));
        } else if (onStack.has(next)) {
          lowLink.set(node, Math.min(lowLink.get(node) ?? 0, index.get(next) ?? 0));
        }
      }
      if (lowLink.get(node) !== index.get(node)) return;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      const selfLoop = component.length === 1 && (dependencies.get(node)?.has(node) ?? false);
      if (component.length > 1 || selfLoop) {
        const members = component.sort();
        this.report({
          rule: 'reference',
          logicalId: members[0],
          path: keyPath('Resources', members[0]),
          message: `circular dependency between resources: ${members.join(', ')} (each needs another to exist first, through Ref, Fn::GetAtt, Fn::Sub or DependsOn)`,
        });
      }
    };
    for (const node of dependencies.keys()) if (!index.has(node)) connect(node);
  }
}

function entriesOf(section: unknown): [string, unknown][] {
  return isPlainObject(section) ? Object.entries(section) : [];
}
