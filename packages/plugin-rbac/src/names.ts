/** Object names OLM generates, with upstream's truncation rules. */
import { hashEncodedObject, sha224Base62 } from './hash.js';
import type { GoJsonValue } from './go-json.js';

/** Upper bound of names generated for CSV permissions (a DNS label, so the names also fit everywhere else). */
export const maxPermissionNameLength = 63;

/** Upper bound of any Kubernetes object name (a DNS subdomain). */
export const kubeResourceNameLimit = 253;

/**
 * `<base>-<hash>` where hash = base62(SHA-224(Go JSON of `content` + newline)), the base cut so the
 * whole name is at most 63 characters. Same content → same name; any change of content → another name.
 *
 * Upstream cuts only when `len(base)+len(hash) > 63`, so a base of exactly `62 - len(hash)` characters
 * yields a 64-character name there; we cut one character earlier to keep the 63 limit.
 */
export function generateName(base: string, content: GoJsonValue): string {
  const hash = hashEncodedObject(content);
  const room = maxPermissionNameLength - hash.length - 1;
  const cut = base.length > room ? base.slice(0, room) : base;
  return `${cut}-${hash}`;
}

/** The three OperatorGroup ClusterRole suffixes, in upstream's order. */
export const operatorGroupRoleSuffixes = ['admin', 'edit', 'view'] as const;
export type OperatorGroupRoleSuffix = (typeof operatorGroupRoleSuffixes)[number];

/**
 * `olm.og.<group>.<suffix>-<base62(sha224("<namespace>/<group>/<suffix>"))>`, the group name cut so the
 * name fits in 253 characters.
 */
export function operatorGroupClusterRoleName(namespace: string, name: string, suffix: string): string {
  const hash = sha224Base62(`${namespace}/${name}/${suffix}`);
  // "olm.og." + "." + "-" = 9 fixed characters around the three parts.
  const nameLimit = kubeResourceNameLimit - 9 - suffix.length - hash.length;
  const groupName = name.length < nameLimit ? name : name.slice(0, nameLimit);
  return `olm.og.${groupName}.${suffix}-${hash}`;
}
