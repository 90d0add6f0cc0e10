import { OlmError } from '@olm/core';

/** Stable codes of the gRPC server, client and catalog source errors. */
export const RegistryGrpcErrorCodes = {
  /** A query the catalog cannot answer (unknown package, no replacement…); carries a gRPC status. */
  query: 'OLM_REGISTRY_QUERY_FAILED',
  /** The catalog cannot be served (a channel without one head, a bundle without `olm.package`…). */
  invalidCatalog: 'OLM_REGISTRY_INVALID_CATALOG',
  /** The server could not start (port in use, bad host). */
  serverStart: 'OLM_REGISTRY_SERVER_START_FAILED',
  /** A call to a registry server failed; `details` has `rpc`, `grpcCode`, `grpcMessage`. */
  rpc: 'OLM_REGISTRY_RPC_FAILED',
  /** A server stream sent more messages or bytes than the client accepts (`details.limit`, `details.address`). */
  streamLimit: 'OLM_REGISTRY_STREAM_LIMIT',
  /** The .proto files shipped with the package were not found. */
  protoMissing: 'OLM_REGISTRY_PROTO_NOT_FOUND',
  /** A registry answer that does not fit the model (a bundle of an unknown package…). */
  badResponse: 'OLM_REGISTRY_BAD_RESPONSE',
} as const;

/** gRPC status codes used by the server (numeric, as on the wire). */
export const GrpcStatus = { unknown: 2, invalidArgument: 3, notFound: 5, internal: 13, unavailable: 14 } as const;

/** A query error: the message is upstream's text verbatim; `grpcCode` is what the server sends. */
export function queryError(message: string, grpcCode: number = GrpcStatus.unknown): OlmError {
  return new OlmError(RegistryGrpcErrorCodes.query, message, { details: { grpcCode } });
}
