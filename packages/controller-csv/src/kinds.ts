import { FieldManagers, Kinds } from '@olm/api';
import type { CachedObject, KubeObject, ObjectKind } from '@olm/core';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = FieldManagers.olmOperator;

export { Kinds };

/** upstream's fnv-1a 64-bit hash in hex, as used by the `olm.api.<hash>` CSV labels. */
export function fnv64aHex(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * prime) & 0xffffffffffffffffn;
  }
  return hash.toString(16);
}

/** A cached object of a known kind as the RBAC generator takes it (list items may omit apiVersion and kind). */
export function kubeObjectOf(object: CachedObject, kind: ObjectKind): KubeObject {
  return { ...object, ...kind, metadata: object.metadata ?? {} };
}
