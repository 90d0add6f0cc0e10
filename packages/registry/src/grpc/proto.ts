import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OlmError } from '@olm/core';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { RegistryGrpcErrorCodes } from './errors.js';

/**
 * The directory holding `registry.proto` and `health.proto`. They ship in the package (`proto/`)
 * and are read at runtime; the path differs between source (`src/grpc/`) and the bundle (`dist/`).
 */
export function protoDirectory(): string {
  const candidates = [new URL('../../proto/', import.meta.url), new URL('../proto/', import.meta.url)];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(`${path}registry.proto`)) return path;
  }
  throw new OlmError(
    RegistryGrpcErrorCodes.protoMissing,
    `registry.proto not found next to @olm/registry (looked in ${candidates.map((url) => fileURLToPath(url)).join(', ')})`,
    { details: { hint: 'the package must be installed with its proto/ directory (package.json "files")' } },
  );
}

/** Absolute paths of the shipped .proto files. */
export function registryProtoPaths(): { readonly registry: string; readonly health: string } {
  const directory = protoDirectory();
  return { registry: `${directory}registry.proto`, health: `${directory}health.proto` };
}

/** The loader options: wire field names kept as written (`csvName`), proto3 defaults filled in. */
export const protoLoaderOptions: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
  oneofs: true,
};

export interface LoadedProtos {
  /** Both files, as loaded (for server reflection). */
  readonly packageDefinition: protoLoader.PackageDefinition;
  readonly registryService: grpc.ServiceDefinition;
  readonly healthService: grpc.ServiceDefinition;
  readonly RegistryClient: grpc.ServiceClientConstructor;
  readonly HealthClient: grpc.ServiceClientConstructor;
}

let loaded: LoadedProtos | undefined;

/** Loads (once) the registry and health service definitions. */
export function loadProtos(): LoadedProtos {
  if (loaded) return loaded;
  const paths = registryProtoPaths();
  const definition = protoLoader.loadSync([paths.registry, paths.health], protoLoaderOptions);
  const root = grpc.loadPackageDefinition(definition) as unknown as {
    api: { Registry: grpc.ServiceClientConstructor };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  loaded = {
    packageDefinition: definition,
    registryService: root.api.Registry.service,
    healthService: root.grpc.health.v1.Health.service,
    RegistryClient: root.api.Registry,
    HealthClient: root.grpc.health.v1.Health,
  };
  return loaded;
}
