/** Values of the `olm.permissions.hash` label (upstream's `PolicyRuleHashLabelValue` and `RoleReferenceAndSubjectHashLabelValue`). */
import type { PolicyRule, RbacSubject, RoleRef } from '@olm/core';
import { goStruct } from '@olm/go-format';
import { policyRulesValue, roleRefStruct, subjectStruct } from './go-json.js';
import { hashMarshalledObject } from './hash.js';

/** base62(SHA-224) of the Go JSON of the rules: equal rules, equal hash, whatever object carries them. */
export function policyRulesHash(rules: readonly PolicyRule[] | undefined): string {
  return hashMarshalledObject(policyRulesValue(rules));
}

/** base62(SHA-224) of the Go JSON of `{RoleRef, Subjects}` (upstream's anonymous struct, untagged field names). */
export function roleBindingHash(roleRef: RoleRef, subjects: readonly RbacSubject[] | undefined): string {
  return hashMarshalledObject(
    goStruct([
      ['RoleRef', roleRefStruct(roleRef)],
      ['Subjects', subjects === undefined ? null : subjects.map(subjectStruct)],
    ]),
  );
}
