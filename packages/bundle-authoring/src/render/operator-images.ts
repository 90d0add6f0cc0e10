import { isObject } from '../json-shapes.js';

const list = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** The images of the containers and init containers of a CSV's install deployments, in order, once each. */
export function operatorImagesOf(spec: Record<string, unknown>): string[] {
  const install = isObject(spec.install) && isObject(spec.install.spec) ? spec.install.spec : {};
  const images = new Set<string>();
  for (const deployment of list(install.deployments)) {
    const template = isObject(deployment.spec) && isObject(deployment.spec.template) ? deployment.spec.template : {};
    const podSpec = isObject(template.spec) ? template.spec : {};
    for (const container of [...list(podSpec.containers), ...list(podSpec.initContainers)]) {
      if (typeof container.image === 'string' && container.image !== '') images.add(container.image);
    }
  }
  return [...images];
}
