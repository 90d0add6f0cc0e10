import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crds } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadKubeconfig } from '../src/kubeconfig.js';
import { runCliCaptured } from './run-cli.js';

/**
 * Where the CLI finds its cluster, as kubectl does: `--kubeconfig`, the `KUBECONFIG` list (merged,
 * the first file to set a value winning, missing files skipped), `~/.kube/config`, with paths
 * inside a kubeconfig relative to its own directory; `--context`, and `-n` defaulting to the
 * context's namespace. The API server here speaks HTTPS and wants a bearer token, so a wrong CA
 * path, token file or cluster entry fails.
 */
describe('kubeconfig loading', () => {
  const token = 'kubeconfig-test-token';
  const environment = ['KUBECONFIG', 'HOME', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'] as const;
  const saved = new Map<string, string | undefined>();
  let server: ApiServer;
  let directory: string;
  let home: string;
  let first: string;
  let second: string;

  /** A kubeconfig whose CA and token are files next to it, named relatively. */
  const kubeconfig = (options: { server: string; current?: string; contexts: Array<{ name: string; namespace?: string }>; tokenFile?: string; token?: string }) =>
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'real', cluster: { server: options.server, 'certificate-authority': 'certs/ca.crt' } }],
      users: [{ name: 'admin', user: options.tokenFile !== undefined ? { 'token-file': options.tokenFile } : { token: options.token } }],
      contexts: options.contexts.map((context) => ({ name: context.name, context: { cluster: 'real', user: 'admin', ...(context.namespace ? { namespace: context.namespace } : {}) } })),
      ...(options.current !== undefined ? { 'current-context': options.current } : {}),
    });

  beforeAll(async () => {
    server = await startApiServer({ port: 0, tls: true, token });
    const client = new KubeClient({ kubeconfig: server.kubeconfig });
    for (const crd of crds) await client.create(crd as unknown as CachedObject);
    client.close();
    const ca = Buffer.from((parse(server.kubeconfig) as { clusters: Array<{ cluster: Record<string, string> }> }).clusters[0]!.cluster['certificate-authority-data']!, 'base64');
    directory = await mkdtemp(join(tmpdir(), 'olm-kubeconfig-'));
    home = join(directory, 'home');
    for (const base of [directory, join(home, '.kube')]) {
      await mkdir(join(base, 'certs'), { recursive: true });
      await writeFile(join(base, 'certs', 'ca.crt'), ca);
      await writeFile(join(base, 'token'), `${token}\n`);
    }
    first = join(directory, 'first.yaml');
    second = join(directory, 'second.yaml');
    // The first file sets the current context, the cluster and the user; the second names the same
    // cluster and user with a dead address and a wrong token (the first wins), and adds a context.
    await writeFile(first, kubeconfig({ server: server.url, current: 'first', contexts: [{ name: 'first' }], tokenFile: 'token' }));
    await writeFile(second, kubeconfig({ server: 'https://127.0.0.1:1', current: 'second', contexts: [{ name: 'second' }, { name: 'team', namespace: 'team-x' }], token: 'wrong' }));
    await writeFile(join(home, '.kube', 'config'), kubeconfig({ server: server.url, current: 'home', contexts: [{ name: 'home', namespace: 'from-home' }], tokenFile: 'token' }));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(directory, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const name of environment) saved.set(name, process.env[name]);
    for (const name of environment) delete process.env[name];
    process.env.HOME = join(directory, 'nobody');
  });
  afterEach(() => {
    for (const name of environment) {
      const value = saved.get(name);
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('merges the KUBECONFIG list as kubectl does: the first file to set a value wins, missing files are skipped', async () => {
    process.env.KUBECONFIG = [first, join(directory, 'missing.yaml'), second].join(':');
    const status = await runCliCaptured(['status']);
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toBe('no subscriptions in namespace operators; install one with: olm install PACKAGE -n operators\n');
    // A context only the second file has, on the first file's cluster and user; -n defaults to its namespace.
    const team = await runCliCaptured(['status', '--context', 'team']);
    expect(team.code).toBe(0);
    expect(team.stdout).toContain('no subscriptions in namespace team-x');
    const given = await runCliCaptured(['status', '--context', 'team', '-n', 'elsewhere']);
    expect(given.stdout).toContain('no subscriptions in namespace elsewhere');
    const loaded = await loadKubeconfig({});
    expect(loaded).toMatchObject({ context: 'first', origin: `KUBECONFIG (${first}:${second})` });
    const exported = JSON.parse(loaded.kubeconfig) as { clusters: Array<{ cluster: Record<string, unknown> }>; users: Array<{ user: Record<string, unknown> }> };
    expect(exported.clusters[0]!.cluster['certificate-authority']).toBe(join(directory, 'certs', 'ca.crt'));
  });

  it('names the available contexts for an unknown --context', async () => {
    process.env.KUBECONFIG = [first, second].join(':');
    const run = await runCliCaptured(['status', '--context', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: context "nope" (--context) is not in KUBECONFIG (${first}:${second}); available contexts: first, second, team`);
  });

  it('prefers --kubeconfig to KUBECONFIG', async () => {
    process.env.KUBECONFIG = first;
    const run = await runCliCaptured(['status', '--kubeconfig', second]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('127.0.0.1:1');
  });

  it('reads ~/.kube/config without KUBECONFIG, with its paths relative to ~/.kube', async () => {
    process.env.HOME = home;
    const run = await runCliCaptured(['status']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('no subscriptions in namespace from-home');
  });

  it('says what to do when no kubeconfig exists', async () => {
    const none = await runCliCaptured(['status']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`error: no cluster given: pass --kubeconfig FILE, set KUBECONFIG, write ${join(directory, 'nobody', '.kube', 'config')}, or run in a pod`);
    process.env.KUBECONFIG = join(directory, 'missing.yaml');
    const missing = await runCliCaptured(['install', 'acme-database']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`KUBECONFIG names no file that exists (${join(directory, 'missing.yaml')})`);
    const broken = join(directory, 'broken.yaml');
    await writeFile(broken, 'clusters: [{cluster: {server: x}}]\n');
    const invalid = await runCliCaptured(['status', '--kubeconfig', broken]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`kubeconfig ${broken}: clusters[0].name is missing`);
  });

  it('resolves client-certificate and client-key against the kubeconfig directory too', async () => {
    const withCertificates = join(directory, 'certificates.yaml');
    await writeFile(
      withCertificates,
      stringify({
        clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority': 'certs/ca.crt' } }],
        users: [{ name: 'u', user: { 'client-certificate': 'certs/client.crt', 'client-key': '/absolute/client.key' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const loaded = await loadKubeconfig({ kubeconfig: withCertificates });
    const user = (JSON.parse(loaded.kubeconfig) as { users: Array<{ user: Record<string, unknown> }> }).users[0]!.user;
    expect(user['client-certificate']).toBe(join(directory, 'certs', 'client.crt'));
    expect(user['client-key']).toBe('/absolute/client.key');
  });
});
