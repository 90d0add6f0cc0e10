import * as grpc from '@grpc/grpc-js';
import { loadProtos } from '../grpc/proto.js';

/** What the hostile server saw: how often ListBundles was called, messages written, streams the client cancelled. */
export interface EndlessRegistryCounts {
  listBundlesCalls: number;
  messagesSent: number;
  cancelledStreams: number;
}

export interface EndlessRegistry {
  readonly address: string;
  readonly counts: EndlessRegistryCounts;
  /** Resolves once the server has written `count` ListBundles messages in total. */
  sent(count: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real gRPC registry server that is healthy, lists one package, and answers ListBundles with an
 * endless stream of bundles (as fast as the client reads; `padBytes` of CSV JSON each), the hostile
 * catalog of issue 21 item 7.
 */
export async function startEndlessRegistry(options: { readonly padBytes?: number } = {}): Promise<EndlessRegistry> {
  const protos = loadProtos();
  const server = new grpc.Server();
  const counts: EndlessRegistryCounts = { listBundlesCalls: 0, messagesSent: 0, cancelledStreams: 0 };
  const waiters: Array<{ readonly count: number; readonly resolve: () => void }> = [];
  const pad = 'x'.repeat(options.padBytes ?? 0);
  const bundle = (index: number) => ({
    csvName: `endless.v0.0.${index}`,
    packageName: 'endless',
    channelName: 'stable',
    version: `0.0.${index}`,
    bundlePath: `quay.io/example/endless:v0.0.${index}`,
    csvJson: pad,
    properties: [{ type: 'olm.package', value: JSON.stringify({ packageName: 'endless', version: `0.0.${index}` }) }],
  });
  const notify = () => {
    for (const waiter of [...waiters]) {
      if (counts.messagesSent >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  server.addService(protos.registryService, {
    ListPackages: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      call.write({ name: 'endless' });
      call.end();
    },
    GetPackage: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
      callback(null, { name: 'endless', defaultChannelName: 'stable', channels: [{ name: 'stable', csvName: 'endless.v0.0.1' }] }),
    ListBundles: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      counts.listBundlesCalls += 1;
      let stopped = false;
      let index = 0;
      const stop = () => {
        if (!stopped) counts.cancelledStreams += 1;
        stopped = true;
      };
      call.on('cancelled', stop);
      call.on('error', stop);
      // Writes until the transport pushes back, then again on 'drain': endless, at the client's pace.
      const pump = (): void => {
        while (!stopped) {
          index += 1;
          counts.messagesSent += 1;
          const more = call.write(bundle(index));
          if (index % 256 === 0) notify();
          if (!more) {
            call.once('drain', pump);
            return;
          }
        }
      };
      pump();
    },
  });
  server.addService(protos.healthService, {
    Check: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { status: 'SERVING' }),
    Watch: (call: grpc.ServerWritableStream<unknown, unknown>) => call.write({ status: 'SERVING' }),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `127.0.0.1:${port}`,
    counts,
    sent: (count) =>
      counts.messagesSent >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    stop: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}
