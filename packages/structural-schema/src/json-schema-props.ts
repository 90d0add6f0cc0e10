/**
 * An apiextensions.k8s.io/v1 `JSONSchemaProps`: the OpenAPI v3 subset a CustomResourceDefinition
 * uses for `spec.versions[].schema.openAPIV3Schema`, including the Kubernetes `x-kubernetes-*` extensions.
 */
export type JSONSchemaProps = {
  type?: string;
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps;
  additionalProperties?: boolean | JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** OpenAPI v3 (draft-04) style: a boolean that makes `minimum` exclusive. */
  exclusiveMinimum?: boolean;
  /** OpenAPI v3 (draft-04) style: a boolean that makes `maximum` exclusive. */
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  uniqueItems?: boolean;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  description?: string;
  title?: string;
  example?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
  [keyword: string]: unknown;
};

/** The `field.ErrorType`s of Kubernetes (`k8s.io/apimachinery/pkg/util/validation/field`) that schema validation produces. */
export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTypeInvalid';

/** One problem with one field of an object, shaped like a Kubernetes `field.Error`. */
export interface FieldError {
  /** Path of the field, e.g. `spec.size` or `spec.items[2].name`; `''` for the object itself. */
  field: string;
  type: FieldErrorType;
  /**
   * The Kubernetes-shaped message without the field prefix, e.g.
   * `Invalid value: "string": spec.size in body must be of type integer: "string"`.
   */
  message: string;
  /** The offending value, when there is one. */
  value?: unknown;
}
