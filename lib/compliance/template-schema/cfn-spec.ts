/**
 * The CloudFormation resource specification the template schema checks read:
 * `@aws-cdk/aws-service-spec`, the database aws-cdk-lib's L1 classes are generated from (the
 * CloudFormation registry schemas merged with the older resource specification). It knows every
 * resource type, its properties (type, required, documentation, and for many the registry
 * schema's enum as `allowedValues`), the type definitions nested in them and the attributes
 * Fn::GetAtt may read.
 *
 * Loading decompresses and indexes the whole database (about half a second), so it happens once
 * per process, on first use: a synthesis validates several templates, a test file many.
 *
 * Properties are addressed by a key that names the path through type definitions, the same key the
 * curated enum table (cfn-enums.ts) uses: `AWS::Lambda::Function.Runtime` for a resource's own
 * property, `AWS::WAFv2::WebACL.TextTransformation.Type` for a property of a type definition (type
 * definition names are unique within a resource type).
 */
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import type { DefinitionReference, Property, Resource, SpecDatabase, TypeDefinition } from '@aws-cdk/service-spec-types';

export type { Property, PropertyType, Resource, TypeDefinition } from '@aws-cdk/service-spec-types';

let database: SpecDatabase | undefined;

function spec(): SpecDatabase {
  database ??= loadAwsServiceSpecSync();
  return database;
}

/** The resource type's specification, or undefined when the specification does not know the type. */
export function resourceSpec(cloudFormationType: string): Resource | undefined {
  const matches = spec().lookup('resource', 'cloudFormationType', 'equals', cloudFormationType);
  return matches.length === 1 ? matches[0] : undefined;
}

export function typeDefinition(reference: DefinitionReference): TypeDefinition {
  return spec().get('typeDefinition', reference.reference);
}

/** The type definitions a resource type's properties use, by name. */
function typeDefinitionsOf(resource: Resource): ReadonlyMap<string, TypeDefinition> {
  return new Map(spec().follow('usesType', resource).map((link) => [link.entity.name, link.entity]));
}

/**
 * The property a key addresses (`AWS::X::Y.Prop` or `AWS::X::Y.TypeName.Prop`), or undefined when
 * no such property exists: how the enum table's keys are proven to name real properties.
 */
export function propertyAt(key: string): Property | undefined {
  const match = /^([A-Za-z0-9]+::[A-Za-z0-9]+::[A-Za-z0-9]+)\.(?:([A-Za-z0-9]+)\.)?([A-Za-z0-9]+)$/.exec(key);
  if (!match) return undefined;
  const [, resourceType, typeName, propertyName] = match;
  const resource = resourceSpec(resourceType);
  if (!resource) return undefined;
  const properties = typeName === undefined ? resource.properties : typeDefinitionsOf(resource).get(typeName)?.properties;
  return properties && Object.hasOwn(properties, propertyName) ? properties[propertyName] : undefined;
}

/** The key of a property of a resource type (`typeName` undefined) or of one of its type definitions. */
export function propertyKey(resourceType: string, typeName: string | undefined, propertyName: string): string {
  return typeName === undefined ? `${resourceType}.${propertyName}` : `${resourceType}.${typeName}.${propertyName}`;
}
