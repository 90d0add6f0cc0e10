import { OlmError, describeError, hasErrorCode } from '@olm/core';
import type { CatalogContent } from '@olm/core';
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import type { ApiGvkQuery } from './api-types.js';
import { GrpcStatus, RegistryGrpcErrorCodes } from './errors.js';
import { loadProtos } from './proto.js';
import { createRegistryIndex } from './registry-index.js';
import type { RegistryIndex } from './registry-index.js';

export interface RegistryServerOptions {
  /** The catalog to serve, or a function that loads it (called at start and on `reload()`). */
  readonly catalog: CatalogContent | (() => Promise<CatalogContent>);
  /** 0 (the default) picks a free port. `opm serve` uses 50051. */
  readonly port?: number;
  /** Interface to bind; default `127.0.0.1`. Use `0.0.0.0` to serve other hosts. */
  readonly host?: string;
}

export interface RegistryServer {
  /** `host:port` clients dial. */
  readonly address: string;
  readonly port: number;
  /** Swaps in new content (or reloads through the loader function); calls already running finish on the old one. */
  reload(catalog?: CatalogContent): Promise<void>;
  /** Stops accepting calls, lets running ones finish for up to `graceMs` (default 5 s), then closes. */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

type UnaryHandler<Request> = (request: Request, index: RegistryIndex) => unknown;
type StreamHandler<Request> = (request: Request, index: RegistryIndex) => Iterable<unknown>;

/**
 * Serves `api.Registry` (every RPC, upstream semantics), `grpc.health.v1.Health` (always SERVING)
 * and server reflection over plaintext gRPC. A query error is answered with upstream's message
 * and code UNKNOWN (as `opm serve`), an unexpected failure with INTERNAL; neither stops the server.
 * Each call reads the content current when it started, so `reload()` never tears a stream.
 */
export async function startRegistryServer(options: RegistryServerOptions): Promise<RegistryServer> {
  const loader = typeof options.catalog === 'function' ? options.catalog : undefined;
  let index = createRegistryIndex(loader ? await loader() : (options.catalog as CatalogContent));
  const protos = loadProtos();
  const server = new grpc.Server();

  const unary =
    <Request>(handler: UnaryHandler<Request>): grpc.handleUnaryCall<Request, unknown> =>
    (call, callback) => {
      try {
        callback(null, withoutDefaults(handler(call.request, index)));
      } catch (error) {
        callback(toServiceError(error));
      }
    };
  const stream =
    <Request>(handler: StreamHandler<Request>): grpc.handleServerStreamingCall<Request, unknown> =>
    (call) => {
      const snapshot = index;
      let messages: Iterator<unknown>;
      try {
        messages = handler(call.request, snapshot)[Symbol.iterator]();
      } catch (error) {
        call.emit('error', toServiceError(error));
        return;
      }
      writeAll(call, messages);
    };

  const gvk = (request: { group?: string; version?: string; kind?: string; plural?: string }): ApiGvkQuery => ({
    group: request.group ?? '',
    version: request.version ?? '',
    kind: request.kind ?? '',
  });
  type Named = { name?: string; pkgName?: string; channelName?: string; csvName?: string };

  server.addService(protos.registryService, {
    ListPackages: stream<object>((_request, current) => current.listPackages().map((name) => ({ name }))),
    GetPackage: unary<Named>((request, current) => current.getPackage(request.name ?? '')),
    GetBundle: unary<Named>((request, current) =>
      current.getBundle(request.pkgName ?? '', request.channelName ?? '', request.csvName ?? ''),
    ),
    GetBundleForChannel: unary<Named>((request, current) =>
      current.getBundleForChannel(request.pkgName ?? '', request.channelName ?? ''),
    ),
    GetChannelEntriesThatReplace: stream<Named>((request, current) => current.getChannelEntriesThatReplace(request.csvName ?? '')),
    GetBundleThatReplaces: unary<Named>((request, current) =>
      current.getBundleThatReplaces(request.csvName ?? '', request.pkgName ?? '', request.channelName ?? ''),
    ),
    GetChannelEntriesThatProvide: stream<ApiGvkQuery>((request, current) => current.getChannelEntriesThatProvide(gvk(request))),
    GetLatestChannelEntriesThatProvide: stream<ApiGvkQuery>((request, current) =>
      current.getLatestChannelEntriesThatProvide(gvk(request)),
    ),
    GetDefaultBundleThatProvides: unary<ApiGvkQuery>((request, current) => current.getDefaultBundleThatProvides(gvk(request))),
    ListBundles: stream<object>((_request, current) => current.listBundles()),
  });

  const serving = { status: 'SERVING' };
  const watchers = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  server.addService(protos.healthService, {
    Check: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, serving),
    // Watch reports SERVING once and stays open until the client cancels (the status never changes).
    Watch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      watchers.add(call);
      call.on('cancelled', () => watchers.delete(call));
      call.write(serving);
    },
  });

  // Server reflection (v1 and v1alpha), so grpcurl works without the .proto files, as with opm serve.
  new ReflectionService(protos.packageDefinition).addToServer(server);

  const host = options.host ?? '127.0.0.1';
  const requestedPort = options.port ?? 0;
  const bindHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${bindHost}:${requestedPort}`, grpc.ServerCredentials.createInsecure(), (error, boundPort) => {
      if (error) {
        reject(
          new OlmError(RegistryGrpcErrorCodes.serverStart, `cannot serve the registry on ${bindHost}:${requestedPort}: ${error.message}`, {
            cause: error,
            details: { host, port: requestedPort, hint: 'pick another --port, or 0 for a free one' },
          }),
        );
      } else {
        resolve(boundPort);
      }
    });
  });

  let stopped = false;
  return {
    address: `${bindHost}:${port}`,
    port,
    async reload(catalog) {
      if (catalog) index = createRegistryIndex(catalog);
      else if (loader) index = createRegistryIndex(await loader());
    },
    async stop(stopOptions = {}) {
      if (stopped) return;
      stopped = true;
      const graceMs = stopOptions.graceMs ?? 5000;
      // Open health watches would otherwise hold the shutdown for the whole grace period.
      for (const watcher of watchers) watcher.end();
      watchers.clear();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** Writes every message, waiting for the transport when its buffer is full; stops if the client goes away. */
function writeAll(call: grpc.ServerWritableStream<unknown, unknown>, messages: Iterator<unknown>): void {
  let finished = false;
  call.on('cancelled', () => {
    finished = true;
  });
  const pump = (): void => {
    try {
      while (!finished) {
        const next = messages.next();
        if (next.done) {
          finished = true;
          call.end();
          return;
        }
        if (!call.write(withoutDefaults(next.value))) {
          call.once('drain', pump);
          return;
        }
      }
    } catch (error) {
      finished = true;
      call.emit('error', toServiceError(error));
    }
  };
  pump();
}

/**
 * Drops proto3 default values ('' and empty lists) before encoding: protobufjs writes fields that
 * are present even when empty, Go's encoder never does, and byte-identical answers are cheap.
 */
function withoutDefaults(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(withoutDefaults);
  if (message === null || typeof message !== 'object') return message;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (value === '' || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = typeof value === 'object' ? withoutDefaults(value) : value;
  }
  return out;
}

function toServiceError(error: unknown): Partial<grpc.StatusObject> {
  if (hasErrorCode(error, RegistryGrpcErrorCodes.query)) {
    const grpcCode = error.details.grpcCode;
    return { code: typeof grpcCode === 'number' ? grpcCode : GrpcStatus.unknown, details: error.message };
  }
  return { code: GrpcStatus.internal, details: `internal error: ${describeError(error)}` };
}
