/** Stable error codes of the registry library (`OLM_REGISTRY_*`). */
export const RegistryErrorCodes = {
  /** A catalog could not be loaded: unreadable files, bad YAML/JSON, wrong field types. */
  load: 'OLM_REGISTRY_LOAD',
  /** The catalog root itself cannot be read (missing, not a directory). Exit 2 in the CLI. */
  input: 'OLM_REGISTRY_INPUT',
  /** The catalog loaded but breaks an `opm validate` rule. */
  invalid: 'OLM_REGISTRY_INVALID',
  /** A package, channel or bundle asked for is not in the catalog. */
  notFound: 'OLM_REGISTRY_NOT_FOUND',
  /** A channel's update graph cannot be ordered (several chains, a cycle). */
  graph: 'OLM_REGISTRY_GRAPH',
  /** A property value does not match its type. */
  property: 'OLM_REGISTRY_PROPERTY',
} as const;

export type RegistryErrorCode = (typeof RegistryErrorCodes)[keyof typeof RegistryErrorCodes];
