import { stringify } from 'yaml';
import { crds } from './crds.js';
import type { CustomResourceDefinition } from './custom-resource-definition.js';

/** The CRDs as a multi-document YAML stream, ready for `kubectl apply -f -`. */
export function renderCrdsYaml(definitions: readonly CustomResourceDefinition[] = crds): string {
  return definitions.map((crd) => `---\n${stringify(crd, { lineWidth: 0 })}`).join('');
}
