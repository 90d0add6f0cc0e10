import { OlmError } from '@olm/core';
import type { ConnectionState } from '@olm/core';
import * as grpc from '@grpc/grpc-js';
import type { ApiBundle, ApiChannelEntry, ApiDeprecation, ApiGvkQuery, ApiPackage, RegistryRpcName } from './api-types.js';
import { RegistryGrpcErrorCodes } from './errors.js';
import { loadProtos } from './proto.js';

export interface RegistryClientOptions {
  /** Deadline of each call in milliseconds (streams: the whole stream). Default 30 s. */
  readonly deadlineMs?: number;
  /**
   * Longest wait between two connection attempts to a registry that does not answer. gRPC's own
   * default (120 s) would leave a restarted registry unseen for minutes. Default 10 s.
   */
  readonly maxReconnectBackoffMs?: number;
  /**
   * Most messages one server stream (ListBundles, ListPackages…) may send before the client aborts it.
   * The certified-operators catalog sends 1,230 ListBundles messages. Default 100,000 (reading that
   * many takes a few seconds of CPU, so a registry that streams forever costs that per attempt).
   */
  readonly maxStreamMessages?: number;
  /**
   * Most bytes (serialized messages) one server stream may send before the client aborts it. The
   * certified-operators catalog's ListBundles is 1.6 MB (its bundles have images, so no manifests). Default 256 MiB.
   */
  readonly maxStreamBytes?: number;
}

/** The stream bounds, so that a registry that streams forever costs a bounded read, not a core until the deadline. */
export const defaultRegistryStreamLimits = Object.freeze({ maxStreamMessages: 100_000, maxStreamBytes: 256 * 1024 * 1024 });

export interface RegistryCallOptions {
  /** Overrides the client's deadline for this call. */
  readonly deadlineMs?: number;
}

export type RegistryHealthStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

/** A typed client of `api.Registry` (ours or an upstream `opm serve`) and of its health service. */
export interface RegistryClient {
  readonly address: string;
  listPackages(options?: RegistryCallOptions): Promise<string[]>;
  getPackage(name: string, options?: RegistryCallOptions): Promise<ApiPackage>;
  getBundle(packageName: string, channelName: string, csvName: string, options?: RegistryCallOptions): Promise<ApiBundle>;
  getBundleForChannel(packageName: string, channelName: string, options?: RegistryCallOptions): Promise<ApiBundle>;
  getChannelEntriesThatReplace(csvName: string, options?: RegistryCallOptions): Promise<ApiChannelEntry[]>;
  getBundleThatReplaces(csvName: string, packageName: string, channelName: string, options?: RegistryCallOptions): Promise<ApiBundle>;
  getChannelEntriesThatProvide(query: ApiGvkQuery, options?: RegistryCallOptions): Promise<ApiChannelEntry[]>;
  getLatestChannelEntriesThatProvide(query: ApiGvkQuery, options?: RegistryCallOptions): Promise<ApiChannelEntry[]>;
  getDefaultBundleThatProvides(query: ApiGvkQuery, options?: RegistryCallOptions): Promise<ApiBundle>;
  /** Streams every (package, channel, bundle) message as it arrives. */
  listBundles(options?: RegistryCallOptions): AsyncIterable<ApiBundle>;
  /** `grpc.health.v1.Health/Check`; `service` '' asks about the server as a whole. */
  checkHealth(service?: string, options?: RegistryCallOptions): Promise<RegistryHealthStatus>;
  /** The channel's connectivity state, as CatalogSource status reports it. */
  state(): ConnectionState;
  /**
   * Calls `listener` with each connectivity state the channel moves to, as it happens, until the
   * returned function is called or the client closes (`SHUTDOWN` is the last call).
   */
  watchState(listener: (state: ConnectionState) => void): () => void;
  /** Connects (if idle) and resolves once READY; rejects with `OLM_REGISTRY_RPC_FAILED` after the deadline. */
  waitForReady(options?: RegistryCallOptions): Promise<void>;
  close(): void;
}

const connectivityNames: Record<number, ConnectionState> = {
  [grpc.connectivityState.IDLE]: 'IDLE',
  [grpc.connectivityState.CONNECTING]: 'CONNECTING',
  [grpc.connectivityState.READY]: 'READY',
  [grpc.connectivityState.TRANSIENT_FAILURE]: 'TRANSIENT_FAILURE',
  [grpc.connectivityState.SHUTDOWN]: 'SHUTDOWN',
};

type UnaryMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: unknown) => void) => grpc.ClientUnaryCall;

/** Opens a plaintext channel to `address` (`host:port`); nothing is sent until the first call. */
export function createRegistryClient(address: string, options: RegistryClientOptions = {}): RegistryClient {
  const protos = loadProtos();
  const channelOptions: grpc.ChannelOptions = {
    'grpc.initial_reconnect_backoff_ms': Math.min(1_000, options.maxReconnectBackoffMs ?? 1_000),
    'grpc.max_reconnect_backoff_ms': options.maxReconnectBackoffMs ?? 10_000,
  };
  const registry = new protos.RegistryClient(address, grpc.credentials.createInsecure(), channelOptions) as unknown as grpc.Client &
    Record<string, UnaryMethod>;
  const health = new protos.HealthClient(address, grpc.credentials.createInsecure(), {
    channelOverride: registry.getChannel(),
  }) as unknown as grpc.Client & Record<string, UnaryMethod>;
  const defaultDeadlineMs = options.deadlineMs ?? 30_000;
  const deadline = (callOptions?: RegistryCallOptions): grpc.CallOptions => ({
    deadline: Date.now() + (callOptions?.deadlineMs ?? defaultDeadlineMs),
  });

  const rpcError = (rpc: string, error: grpc.ServiceError): OlmError =>
    new OlmError(RegistryGrpcErrorCodes.rpc, `${rpc} on ${address}: ${error.details || error.message}`, {
      cause: error,
      details: { rpc, address, grpcCode: error.code, grpcStatus: grpc.status[error.code], grpcMessage: error.details },
    });

  const callUnary = (target: Record<string, UnaryMethod>, rpc: string, request: object, callOptions?: RegistryCallOptions) =>
    new Promise<unknown>((resolve, reject) => {
      const method = target[rpc];
      if (!method) throw new Error(`no method ${rpc}`);
      method.call(target, request, new grpc.Metadata(), deadline(callOptions), (error, response) => {
        if (error) reject(rpcError(rpc, error));
        else resolve(response);
      });
    });

  const maxStreamMessages = options.maxStreamMessages ?? defaultRegistryStreamLimits.maxStreamMessages;
  const maxStreamBytes = options.maxStreamBytes ?? defaultRegistryStreamLimits.maxStreamBytes;
  const streamLimitError = (rpc: string, limit: 'maxStreamMessages' | 'maxStreamBytes', value: number, what: string): OlmError =>
    new OlmError(
      RegistryGrpcErrorCodes.streamLimit,
      `${rpc} on ${address}: the registry sent more than ${value} ${what} on one stream (limit ${limit}); the stream was cancelled`,
      { details: { rpc, address, limit, value, hint: `if the catalog is this large, raise the registry client option ${limit} (RegistryClientOptions, the grpc source type's client options)` } },
    );

  async function* callStream(rpc: RegistryRpcName, request: object, callOptions?: RegistryCallOptions): AsyncGenerator<unknown> {
    const definition = protos.registryService[rpc];
    if (!definition) throw new Error(`no method ${rpc}`);
    let bytes = 0;
    // Bytes are counted as they are deserialized, before the message is even built.
    const deserialize = (buffer: Buffer): unknown => {
      bytes += buffer.length;
      return definition.responseDeserialize(buffer);
    };
    const call = registry.makeServerStreamRequest(definition.path, definition.requestSerialize, deserialize, request, new grpc.Metadata(), deadline(callOptions));
    let messages = 0;
    try {
      for await (const message of call) {
        messages += 1;
        if (messages > maxStreamMessages) throw streamLimitError(rpc, 'maxStreamMessages', maxStreamMessages, 'messages');
        if (bytes > maxStreamBytes) throw streamLimitError(rpc, 'maxStreamBytes', maxStreamBytes, 'bytes');
        yield message;
      }
    } catch (error) {
      if (error instanceof OlmError) throw error;
      throw rpcError(rpc, error as grpc.ServiceError);
    } finally {
      call.cancel();
    }
  }
  const collect = async <T>(messages: AsyncIterable<unknown>, map: (message: unknown) => T): Promise<T[]> => {
    const out: T[] = [];
    for await (const message of messages) out.push(map(message));
    return out;
  };
  const gvkRequest = (query: ApiGvkQuery) => ({ group: query.group, version: query.version, kind: query.kind, plural: query.plural ?? '' });

  return {
    address,
    listPackages: (callOptions) =>
      collect(callStream('ListPackages', {}, callOptions), (message) => String((message as { name?: unknown }).name ?? '')),
    getPackage: async (name, callOptions) => toPackage(await callUnary(registry, 'GetPackage', { name }, callOptions)),
    getBundle: async (pkgName, channelName, csvName, callOptions) =>
      toBundle(await callUnary(registry, 'GetBundle', { pkgName, channelName, csvName }, callOptions)),
    getBundleForChannel: async (pkgName, channelName, callOptions) =>
      toBundle(await callUnary(registry, 'GetBundleForChannel', { pkgName, channelName }, callOptions)),
    getChannelEntriesThatReplace: (csvName, callOptions) =>
      collect(callStream('GetChannelEntriesThatReplace', { csvName }, callOptions), toChannelEntry),
    getBundleThatReplaces: async (csvName, pkgName, channelName, callOptions) =>
      toBundle(await callUnary(registry, 'GetBundleThatReplaces', { csvName, pkgName, channelName }, callOptions)),
    getChannelEntriesThatProvide: (query, callOptions) =>
      collect(callStream('GetChannelEntriesThatProvide', gvkRequest(query), callOptions), toChannelEntry),
    getLatestChannelEntriesThatProvide: (query, callOptions) =>
      collect(callStream('GetLatestChannelEntriesThatProvide', gvkRequest(query), callOptions), toChannelEntry),
    getDefaultBundleThatProvides: async (query, callOptions) =>
      toBundle(await callUnary(registry, 'GetDefaultBundleThatProvides', gvkRequest(query), callOptions)),
    async *listBundles(callOptions) {
      for await (const message of callStream('ListBundles', {}, callOptions)) yield toBundle(message);
    },
    async checkHealth(service = '', callOptions) {
      const response = (await callUnary(health, 'Check', { service }, callOptions)) as { status?: unknown };
      return (typeof response.status === 'string' ? response.status : 'UNKNOWN') as RegistryHealthStatus;
    },
    state: () => connectivityNames[registry.getChannel().getConnectivityState(false)] ?? 'IDLE',
    watchState(listener) {
      const channel = registry.getChannel();
      let watching = true;
      const watchFrom = (current: grpc.connectivityState) => {
        try {
          channel.watchConnectivityState(current, Infinity, () => {
            if (!watching) return;
            const next = channel.getConnectivityState(false);
            if (next !== grpc.connectivityState.SHUTDOWN) watchFrom(next);
            try {
              listener(connectivityNames[next] ?? 'IDLE');
            } catch {
              // A listener's failure must not reach grpc-js, which calls this while it changes state.
            }
          });
        } catch {
          // The channel is shut down: nothing more will change.
          watching = false;
        }
      };
      watchFrom(channel.getConnectivityState(false));
      return () => {
        watching = false;
      };
    },
    waitForReady: (callOptions) =>
      new Promise<void>((resolve, reject) => {
        registry.waitForReady(deadline(callOptions).deadline as number, (error) => {
          if (error) {
            reject(
              new OlmError(RegistryGrpcErrorCodes.rpc, `registry ${address} not ready: ${error.message}`, {
                cause: error,
                details: { address, state: connectivityNames[registry.getChannel().getConnectivityState(false)] },
              }),
            );
          } else {
            resolve();
          }
        });
      }),
    close: () => {
      health.close();
      registry.close();
    },
  };
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function deprecationField(value: unknown): { deprecation?: ApiDeprecation } {
  const message = record(value).message;
  return value !== null && value !== undefined && typeof message === 'string' ? { deprecation: { message } } : {};
}

function toGvk(value: unknown) {
  const gvk = record(value);
  return { group: str(gvk.group), version: str(gvk.version), kind: str(gvk.kind), plural: str(gvk.plural) };
}

function toTyped(value: unknown) {
  const typed = record(value);
  return { type: str(typed.type), value: str(typed.value) };
}

export function toBundle(value: unknown): ApiBundle {
  const bundle = record(value);
  return {
    csvName: str(bundle.csvName),
    packageName: str(bundle.packageName),
    channelName: str(bundle.channelName),
    csvJson: str(bundle.csvJson),
    object: list(bundle.object).map(str),
    bundlePath: str(bundle.bundlePath),
    providedApis: list(bundle.providedApis).map(toGvk),
    requiredApis: list(bundle.requiredApis).map(toGvk),
    version: str(bundle.version),
    skipRange: str(bundle.skipRange),
    dependencies: list(bundle.dependencies).map(toTyped),
    properties: list(bundle.properties).map(toTyped),
    replaces: str(bundle.replaces),
    skips: list(bundle.skips).map(str),
    ...deprecationField(bundle.deprecation),
  };
}

function toPackage(value: unknown): ApiPackage {
  const pkg = record(value);
  return {
    name: str(pkg.name),
    channels: list(pkg.channels).map((channel) => {
      const fields = record(channel);
      return { name: str(fields.name), csvName: str(fields.csvName), ...deprecationField(fields.deprecation) };
    }),
    defaultChannelName: str(pkg.defaultChannelName),
    ...deprecationField(pkg.deprecation),
  };
}

function toChannelEntry(value: unknown): ApiChannelEntry {
  const entry = record(value);
  return {
    packageName: str(entry.packageName),
    channelName: str(entry.channelName),
    bundleName: str(entry.bundleName),
    replaces: str(entry.replaces),
  };
}
