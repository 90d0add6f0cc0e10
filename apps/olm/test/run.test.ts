import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crds } from '@olm/api';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runControllers } from '../src/commands/run.js';
import { runCliCaptured, testRunOptions } from './run-cli.js';

describe('olm run', () => {
  let server: ApiServer;
  let kubeconfigPath: string;

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    kubeconfigPath = join(await mkdtemp(join(tmpdir(), 'olm-run-')), 'kubeconfig');
    await writeFile(kubeconfigPath, server.kubeconfig);
    const response = await fetch(`${server.url}/api/v1/namespaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olm' } }),
    });
    expect(response.status).toBe(201);
    // The controllers need OLM's CRDs, as on a real cluster (`olm crds | kubectl apply -f -`).
    for (const crd of crds) {
      const created = await fetch(`${server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
        body: JSON.stringify(crd),
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves metrics and readiness while the controllers run, and holds the leader Lease', async () => {
    let url: string | undefined;
    const running = runControllers(
      testRunOptions({ kubeconfig: kubeconfigPath, leaderElection: true, runFor: 60_000 }),
      (text) => {
        url ??= /on (http:\/\/\S+)/.exec(text)?.[1];
      },
    );
    try {
      await expect.poll(() => url, { timeout: 20_000 }).toBeDefined();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^process_cpu_user_seconds_total /m);
      await expect
        .poll(async () => (await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/olm/leases/olm-controllers`, { headers: { authorization: `Bearer ${server.token}` } })).status, {
          timeout: 20_000,
        })
        .toBe(200);
      await expect.poll(async () => (await (await fetch(`${url}/metrics`)).text()), { timeout: 20_000 }).toMatch(
        /^leader_election_master_status\{name="olm-controllers"\} 1$/m,
      );
    } finally {
      process.emit('SIGTERM');
      await running;
    }
  });

  it('writes structured JSON logs on stderr, as verbose as --log-level says', async () => {
    const base = ['run', '--kubeconfig', kubeconfigPath, '--metrics-port', '0', '--metrics-host', '127.0.0.1', '--no-leader-election', '--exit-after-start'];
    const info = await runCliCaptured([...base, '--log-level', 'info']);
    expect(info.code).toBe(0);
    const entries = info.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry).toMatchObject({ name: 'olm', level: expect.any(Number), time: expect.any(String), msg: expect.any(String) });
    const started = entries.find((entry) => entry.msg === 'controllers started');
    expect(started).toMatchObject({ level: 30, plugins: expect.arrayContaining(['controller-csv', 'controller-catalog']) });
    expect(new Date(started!.time as string).toISOString()).toBe(started!.time);

    const quiet = await runCliCaptured([...base, '--log-level', 'error']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    const bad = await runCliCaptured([...base, '--log-level', 'verbose']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`argument 'verbose' is invalid. Allowed choices are debug, info, warn, error, silent.`);
  });

  it('explains a missing or unreadable kubeconfig and exits 2', async () => {
    // Nothing names a cluster, even when the tests themselves run in a pod.
    const names = ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'HOME'] as const;
    const previous = names.map((name) => process.env[name]);
    for (const name of names) delete process.env[name];
    // And no ~/.kube/config.
    process.env.HOME = join(tmpdir(), 'olm-run-test-no-home');
    try {
      const none = await runCliCaptured(['run', '--exit-after-start']);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('no cluster given: pass --kubeconfig FILE');
      const missing = await runCliCaptured(['run', '--kubeconfig', '/nonexistent/kubeconfig', '--exit-after-start']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('cannot read kubeconfig /nonexistent/kubeconfig');
    } finally {
      names.forEach((name, index) => {
        if (previous[index] !== undefined) process.env[name] = previous[index];
        else delete process.env[name];
      });
    }
  });
});
