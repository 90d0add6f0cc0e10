import { createKeyedExtensionPoint } from '../kernel/extension-point.js';

/**
 * A property type (`olm.gvk`, `olm.package`, …): how to parse and validate a property's value.
 * Unknown types are kept opaque by consumers; they need no contribution here.
 */
export interface PropertyType<T = unknown> {
  /** The property `type` string, verbatim as upstream (`olm.package`). */
  readonly type: string;
  /** Parses a decoded JSON value; throws an Error whose message says what is wrong with it. */
  parse(value: unknown): T;
}

export const propertyTypes = createKeyedExtensionPoint<PropertyType>({
  id: 'olm.propertyTypes',
  description: 'property types by their `type` string',
  keyOf: (propertyType) => propertyType.type,
  hint: 'boot the registry plugin (@olm/registry), which contributes the built-in olm.* property types',
});
