import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually as eventuallySettled, type Settled } from '@olm/testing';
import { kubeconfigGet, kubeconfigGetJson } from '../kubeconfig-fetch.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const kubectlBinary = process.env.KUBECTL ?? 'kubectl';

/** Whether the end-to-end prerequisites exist: the built CLI and a kubectl. */
export function e2eUnavailableReason(): string | undefined {
  if (!existsSync(cli)) return `the CLI is not built (${cli}); run pnpm build first`;
  const version = spawnSync(kubectlBinary, ['version', '--client'], { encoding: 'utf8' });
  if (version.status !== 0) return `no kubectl (${kubectlBinary}); set KUBECTL or install kubernetes-client`;
  return undefined;
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface OlmUp {
  readonly dataDir: string;
  readonly kubeconfig: string;
  readonly metricsUrl: string;
  /** Everything `olm up` printed so far. */
  output(): string;
  kubectl(args: readonly string[], input?: string): Promise<CommandResult>;
  /** kubectl that must succeed; returns stdout. */
  kubectlOk(args: readonly string[], input?: string): Promise<string>;
  /** The built `olm` CLI with KUBECONFIG pointing at this cluster, as a user runs it. */
  olm(args: readonly string[]): Promise<CommandResult>;
  /** Ctrl-C, and wait for a clean exit. */
  stop(): Promise<number | null>;
}

/** Runs the built `olm up` (as a user would) on a free port and waits until it says OLM is up. */
export async function startOlmUp(
  options: { readonly dataDir?: string; readonly catalogs?: readonly string[]; readonly extraArgs?: readonly string[] } = {},
): Promise<OlmUp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'olm-e2e-'));
  const cacheDir = mkdtempSync(join(tmpdir(), 'olm-e2e-kubecache-'));
  const args = [
    'up',
    '--port',
    '0',
    '--metrics-port',
    '0',
    '--data-dir',
    dataDir,
    ...(options.catalogs ?? []).flatMap((dir) => ['--catalog', dir]),
    ...(options.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 60_000;
  while (!output.includes('OLM is up')) {
    if (child.exitCode !== null) throw new Error(`olm up exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`olm up did not start within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const kubeconfig = /kubeconfig: (\S+)/.exec(output)![1]!;
  const metricsUrl = /metrics, health and readiness on (\S+)/.exec(output)![1]!;

  const runWithKubeconfig = (command: string, commandArgs: readonly string[], input?: string) =>
    new Promise<CommandResult>((resolve) => {
      const run = spawn(command, [...commandArgs], {
        env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: cacheDir },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      run.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      run.stdin.end(input ?? '');
    });
  const kubectl = (kubectlArgs: readonly string[], input?: string) => runWithKubeconfig(kubectlBinary, kubectlArgs, input);

  return {
    dataDir,
    kubeconfig,
    metricsUrl,
    output: () => output,
    kubectl,
    async kubectlOk(kubectlArgs, input) {
      const result = await kubectl(kubectlArgs, input);
      if (result.code !== 0) throw new Error(`kubectl ${kubectlArgs.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    olm: (olmArgs) => runWithKubeconfig(process.execPath, [cli, ...olmArgs]),
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      rmSync(cacheDir, { recursive: true, force: true });
      return code;
    },
  };
}

interface ResourceList {
  groupVersion: string;
  resources: Array<{ name: string; verbs: string[] }>;
}

/**
 * Every write the server sees during `ms` milliseconds, as `TYPE plural ns/name (managers)`: a watch
 * on each served resource from the current revision. Events and Leases (which keep changing by design)
 * and aggregated APIs are left out.
 */
export async function writesDuring(up: OlmUp, ms: number): Promise<string[]> {
  const getJson = <T>(path: string): Promise<T> => kubeconfigGetJson<T>(up.kubeconfig, path);
  const groups = await getJson<{ groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> }>('/apis');
  const lists = [await getJson<ResourceList>('/api/v1')];
  for (const group of groups.groups) {
    if (group.name === 'packages.operators.coreos.com') continue;
    lists.push(await getJson<ResourceList>(`/apis/${group.preferredVersion.groupVersion}`));
  }
  const paths = lists.flatMap((list) =>
    list.resources
      .filter((resource) => !resource.name.includes('/') && resource.verbs.includes('watch') && resource.name !== 'events' && resource.name !== 'leases')
      .map((resource) => `${list.groupVersion === 'v1' ? '/api/v1' : `/apis/${list.groupVersion}`}/${resource.name}`),
  );
  const { metadata } = await getJson<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces');
  const timeoutSeconds = Math.ceil(ms / 1000);
  const writes = await Promise.all(
    paths.map(async (path) => {
      const { text } = await kubeconfigGet(up.kubeconfig, `${path}?watch=true&resourceVersion=${metadata.resourceVersion}&timeoutSeconds=${timeoutSeconds}`);
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { type: string; object: { metadata?: { namespace?: string; name?: string; managedFields?: Array<{ manager?: string }> } } })
        .map(({ type, object }) => `${type} ${path} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''} (${(object.metadata?.managedFields ?? []).map((entry) => entry.manager).join(',')})`);
    }),
  );
  return writes.flat();
}

/** `@olm/testing`'s eventually with the end-to-end pace: a minute by default, polled every 250 ms. */
export function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<Settled<T | undefined>> {
  return eventuallySettled(check, { message: what, timeoutMs, intervalMs: 250 });
}

/** `olm catalog serve DIR` on a free loopback port, as a user would run it beside `olm up`; `stop()` ends it. */
export async function serveCatalog(directory: string): Promise<{ readonly address: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [cli, 'catalog', 'serve', directory, '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = await eventually(`olm catalog serve ${directory} to listen`, async () => {
    if (child.exitCode !== null) throw new Error(`olm catalog serve exited with ${child.exitCode}: ${output}`);
    return / on (127\.0\.0\.1:\d+)/.exec(output)?.[1];
  }, 30_000);
  return {
    address,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
