import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRecorder } from '../src/event-recorder.js';
import type { KubeClient } from '../src/kube-client.js';
import { configMap, configMapKind, createNamespace, startServer } from './helpers.js';

/** kubectl 1.32 if this machine has one ($KUBECTL wins); the test that needs it is skipped otherwise. */
const kubectl = [process.env['KUBECTL'], '/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/local/bin/kubectl', '/usr/bin/kubectl'].find(
  (candidate): candidate is string => !!candidate && existsSync(candidate),
);

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  // HTTPS: kubectl sends its credentials only over TLS.
  env = await startServer({ tls: true });
  client = env.client();
  await createNamespace(client, 'kc');
  await client.create(configMap('kc', 'one', { a: '1' }));
});
afterAll(() => env?.stop());

describe('EventRecorder against the local API server', () => {
  it('records events that kubectl describe finds, aggregating repeats into a count', async () => {
    const involved = await client.get({ ...configMapKind, namespace: 'kc', name: 'one' });
    const recorder = new EventRecorder({ client, component: 'olm-test' });
    await Promise.all([
      recorder.warning(involved, 'Broken', 'it broke'),
      recorder.warning(involved, 'Broken', 'it broke'),
      recorder.warning(involved, 'Broken', 'it broke'),
    ]);
    await recorder.normal(involved, 'Fixed', 'all good');
    const events = await client.list({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'kc' });
    const mine = events.items.filter(
      (event) => (event['involvedObject'] as { uid?: string }).uid === involved.metadata?.uid,
    ) as Array<Record<string, unknown>>;
    expect(mine.map((event) => [event['reason'], event['count'], event['type']]).sort()).toEqual([
      ['Broken', 3, 'Warning'],
      ['Fixed', 1, 'Normal'],
    ]);
    expect(mine[0]).toMatchObject({
      involvedObject: { kind: 'ConfigMap', name: 'one', namespace: 'kc' },
      source: { component: 'olm-test' },
    });
    // recording about something unreachable never throws
    await recorder.normal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'no-such-ns' } }, 'R', 'm');
  });

  it.skipIf(!kubectl)('shows the aggregated event in kubectl describe', async () => {
    const involved = await client.create(configMap('kc', 'described', {}));
    const recorder = new EventRecorder({ client, component: 'olm-test' });
    await recorder.warning(involved, 'Degraded', 'deployment not available');
    await recorder.warning(involved, 'Degraded', 'deployment not available');
    const { stdout } = await promisify(execFile)(
      kubectl!,
      ['--kubeconfig', env.server.kubeconfigPath, 'describe', 'configmap', 'described', '-n', 'kc'],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(stdout).toMatch(/Warning\s+Degraded\s+.*\(x2 over .*\)\s+olm-test\s+deployment not available/);
  });

  it('names the part of the object an event is about, and aggregates per part', async () => {
    const involved = await client.create(configMap('kc', 'parts', {}));
    const recorder = new EventRecorder({ client, component: 'olm-test' });
    await recorder.warning(involved, 'AppliedWithWarnings', 'same text', { fieldPath: 'status.plan[0]' });
    await recorder.warning(involved, 'AppliedWithWarnings', 'same text', { fieldPath: 'status.plan[1]' });
    await recorder.warning(involved, 'AppliedWithWarnings', 'same text', { fieldPath: 'status.plan[1]' });
    const events = (await client.list({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'kc' })).items as Array<Record<string, any>>;
    const mine = events.filter((event) => event['involvedObject'].uid === involved.metadata?.uid);
    expect(mine.map((event) => [event['involvedObject'].fieldPath, event['count']]).sort()).toEqual([
      ['status.plan[0]', 1],
      ['status.plan[1]', 2],
    ]);
  });
});

