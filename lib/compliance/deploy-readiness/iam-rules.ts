/**
 * The inline policies of an IAM role: 10,240 characters together, counted as IAM counts them (the
 * JSON without white space). CDK grows a function's default policy with every grant, and IAM
 * refuses the policy that tips the role over ("Maximum policy size of 10240 bytes exceeded for
 * role …") only at deploy time. A role's inline policies are its Policies property plus every
 * AWS::IAM::Policy and AWS::IAM::RolePolicy attached to it by Ref in the same template.
 */
import { maxJsonLength, UnboundedValueError, type IntrinsicScope } from './intrinsics';
import { defineRule, isObject, resourcesOf, type LocatedResource, type Problem } from './rule';

/** "Role policy size … 10,240 characters" for all inline policies of a role together. */
export const MAX_ROLE_INLINE_POLICY_CHARACTERS = 10_240;

// IAM and AWS STS quotas (role policy size):
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html
export const iamInlinePolicySize = defineRule({
  id: 'iam-inline-policy-size',
  title: 'Each role’s inline policies stay within 10,240 characters together',
  docs: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html',
  problems: (stacks) =>
    resourcesOf(stacks, 'AWS::IAM::Role').flatMap((role): Problem[] => {
      const scope: IntrinsicScope = { template: role.stack.template, stacks, measure: 'characters' };
      const documents = inlinePolicyDocuments(role);
      try {
        const characters = documents.reduce((total, { document }) => total + maxJsonLength(document, scope), 0);
        if (characters <= MAX_ROLE_INLINE_POLICY_CHARACTERS) return [];
        return [
          {
            stackName: role.stack.stackName,
            logicalId: role.logicalId,
            locations: documents.map(({ location }) => location),
            problem: `inline policies of up to ${characters} characters together (estimated upper bound, intrinsics at their longest), above IAM's ${MAX_ROLE_INLINE_POLICY_CHARACTERS}`,
            fix: 'Merge statements that share actions or resources, grant on a resource prefix instead of one statement per resource, or move stable permissions to a customer managed policy.',
          },
        ];
      } catch (error) {
        if (!(error instanceof UnboundedValueError)) throw error;
        return [
          {
            stackName: role.stack.stackName,
            logicalId: role.logicalId,
            locations: documents.map(({ location }) => location),
            problem: `inline policy size cannot be bounded: ${error.message}`,
            fix: 'Add a bound for it to lib/compliance/deploy-readiness/intrinsics.ts.',
          },
        ];
      }
    }),
});

/** The role's inline policy documents, each with where it is (`<logical id>/Properties/…` for policies of their own). */
function inlinePolicyDocuments(role: LocatedResource): { document: unknown; location: string }[] {
  const own = Array.isArray(role.resource.Properties?.Policies) ? role.resource.Properties.Policies : [];
  const documents = own.flatMap((policy: unknown, i) => (isObject(policy) ? [{ document: policy.PolicyDocument, location: `Properties/Policies/${i}/PolicyDocument` }] : []));
  for (const [logicalId, resource] of Object.entries(role.stack.template.Resources ?? {})) {
    const properties = resource.Properties ?? {};
    const attached =
      (resource.Type === 'AWS::IAM::Policy' && Array.isArray(properties.Roles) && properties.Roles.some((entry: unknown) => refersTo(entry, role.logicalId))) ||
      (resource.Type === 'AWS::IAM::RolePolicy' && refersTo(properties.RoleName, role.logicalId));
    if (attached) documents.push({ document: properties.PolicyDocument, location: `${logicalId}/Properties/PolicyDocument` });
  }
  return documents;
}

function refersTo(value: unknown, logicalId: string): boolean {
  return isObject(value) && value.Ref === logicalId;
}
