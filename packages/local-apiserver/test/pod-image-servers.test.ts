import { createServer, type Server } from 'node:http';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer, ServedPod } from '../src/index.js';
import { eventually, kubeConfigOf, startTestServer } from './helpers.js';

/** An HTTP server answering with the Pod's name: what a container of `example.com/hello:v1` would run. */
async function hello(pod: ServedPod): Promise<{ stop(): Promise<void> }> {
  const server: Server = createServer((_request, response) => response.end(`hello from ${pod.name}`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(8080, pod.podIP, resolve);
  });
  return { stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Retries `check` until it gives a truthy value (the helpers' `eventually` retries on throws). */
const until = <T>(check: () => Promise<T | false | undefined>, what: string) =>
  eventually(async () => {
    const value = await check();
    if (!value) throw new Error(`${what} not reached`);
    return value;
  }, 10_000);

const pod = (name: string, image: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'main', image, ports: [{ containerPort: 8080 }] }] },
});

describe('Pods whose image the test serves', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  const served: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      podImageServers: {
        'example.com/hello:v1': async (target) => {
          served.push(`${target.namespace}/${target.name}`);
          return hello(target);
        },
        'example.com/broken:v1': () => Promise.reject(new Error('listen EADDRINUSE: port taken')),
      },
    });
    const config = kubeConfigOf(server);
    core = config.makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await server.stop();
  });

  const readyPod = (name: string) =>
    until(async () => {
      const found = await core.readNamespacedPod({ name, namespace: 'default' });
      return found.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') && found;
    }, `pod ${name} ready`);

  it('runs the server on a loopback IP of the Pod\'s own and reports the Pod Ready there', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('web-1', 'example.com/hello:v1') });
    await core.createNamespacedPod({ namespace: 'default', body: pod('web-2', 'example.com/hello:v1') });
    const [first, second] = [await readyPod('web-1'), await readyPod('web-2')];
    expect(first.status?.phase).toBe('Running');
    expect(first.status?.podIP).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(first.status?.podIPs).toEqual([{ ip: first.status?.podIP }]);
    // two Pods, two addresses, the same container port
    expect(second.status?.podIP).not.toBe(first.status?.podIP);
    expect(await (await fetch(`http://${first.status!.podIP}:8080/`)).text()).toBe('hello from web-1');
    expect(await (await fetch(`http://${second.status!.podIP}:8080/`)).text()).toBe('hello from web-2');
    expect(served).toEqual(['default/web-1', 'default/web-2']);
  });

  it('stops the server when the Pod is deleted', async () => {
    const { status } = await readyPod('web-1');
    await core.deleteNamespacedPod({ name: 'web-1', namespace: 'default' });
    await until(async () => {
      try {
        await fetch(`http://${status!.podIP}:8080/`);
        return false;
      } catch {
        return true;
      }
    }, 'server stopped');
  });

  it('reports a server that fails to start as a container that is not ready, with its error', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('broken', 'example.com/broken:v1') });
    const found = await until(async () => {
      const read = await core.readNamespacedPod({ name: 'broken', namespace: 'default' });
      return read.status?.containerStatuses?.[0]?.state?.waiting && read;
    }, 'broken pod status');
    expect(found.status?.containerStatuses?.[0]).toMatchObject({ ready: false, state: { waiting: { reason: 'CrashLoopBackOff', message: 'listen EADDRINUSE: port taken' } } });
    expect(found.status?.conditions?.find((condition) => condition.type === 'Ready')?.status).toBe('False');
  });

  it('runs other Pods as before', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('plain', 'example.com/other:v1') });
    const found = await readyPod('plain');
    expect(found.status?.podIP).toMatch(/^10\.244\.0\.\d+$/);
  });
});
