import { isJsonObject } from './kube-object.js';
import type { ListKind } from './managed-fields.js';
import { isPrimitiveMergeList, strategicMergeKey } from './strategic-merge-patch.js';

/**
 * How server-side apply identifies the items of a built-in list: Kubernetes' `listType=map` keys
 * where they differ from the strategic merge key (ports are keyed by number and protocol, which
 * defaults to TCP), else the strategic merge key, as kube-apiserver falls back to it.
 */
const tcpDefault = { protocol: 'TCP' };

export function builtinListKind(field: string, items: readonly unknown[]): ListKind | undefined {
  if (isPrimitiveMergeList(field)) return { type: 'set' };
  if (field === 'ports') {
    const containerPorts = items.some((item) => isJsonObject(item) && 'containerPort' in item);
    return { type: 'map', keys: [containerPorts ? 'containerPort' : 'port', 'protocol'], defaults: tcpDefault };
  }
  if (field === 'topologySpreadConstraints') return { type: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] };
  const key = strategicMergeKey(field, items);
  return key === undefined ? undefined : { type: 'map', keys: [key] };
}
