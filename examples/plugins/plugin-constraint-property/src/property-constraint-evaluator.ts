import { isDeepStrictEqual } from 'node:util';
import type { BundlePredicate, ConstraintEvaluator } from '@olm/core';

/** The constraint kind this package adds: `{"property": {"type": "acme.certified", "value": true}}`. */
export const PROPERTY_CONSTRAINT_KIND = 'property';

interface PropertyConstraintValue {
  readonly type: string;
  /** When present, the property's value must equal it (compared as decoded JSON, key order ignored). */
  readonly value?: unknown;
}

function parseValue(value: unknown): PropertyConstraintValue {
  const shape = 'give {"type": "<property type>"} and optionally "value"';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`the "${PROPERTY_CONSTRAINT_KIND}" constraint must be an object: ${shape}`);
  }
  const fields = value as Record<string, unknown>;
  const unknownFields = Object.keys(fields).filter((key) => key !== 'type' && key !== 'value');
  if (unknownFields.length > 0) {
    throw new Error(`the "${PROPERTY_CONSTRAINT_KIND}" constraint has unknown field(s) ${unknownFields.map((key) => JSON.stringify(key)).join(', ')}: ${shape}`);
  }
  if (typeof fields.type !== 'string' || fields.type.length === 0) {
    throw new Error(`the "${PROPERTY_CONSTRAINT_KIND}" constraint needs a non-empty string "type": ${shape}`);
  }
  return 'value' in fields ? { type: fields.type, value: fields.value } : { type: fields.type };
}

/** Compiles the `property` kind: satisfied by a bundle carrying a property of that type (and value). */
export function createPropertyConstraintEvaluator(): ConstraintEvaluator {
  return {
    kind: PROPERTY_CONSTRAINT_KIND,
    compile(value): BundlePredicate {
      const wanted = parseValue(value);
      const matches = 'value' in wanted ? (candidate: unknown) => isDeepStrictEqual(candidate, wanted.value) : () => true;
      return {
        test: (subject) => subject.properties.some((property) => property.type === wanted.type && matches(property.value)),
        describe: () => `with property: ${wanted.type}${'value' in wanted ? `=${JSON.stringify(wanted.value)}` : ''}`,
      };
    },
  };
}
