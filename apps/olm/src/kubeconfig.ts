import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { inputError, usageError } from './cli-errors.js';

/** How a command finds its cluster: kubectl's flags, plus `--in-cluster` for the long-running ones. */
export interface ClusterFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly inCluster?: boolean;
  /**
   * Where the service-account files are mounted below: `/` in a pod; a directory in tests, which
   * then holds `var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}`.
   */
  readonly serviceAccountRoot?: string;
}

export interface LoadedKubeconfig {
  /**
   * One self-contained kubeconfig document (JSON) whose current context is the selected one, with
   * every file path made absolute: what `KubeClient` and the kernel's `kubeClient` point take.
   */
  readonly kubeconfig: string;
  /** The selected context. */
  readonly context: string;
  /** The selected context's namespace, when it names one (the pod's namespace in a cluster). */
  readonly namespace?: string;
  /** Where it came from, for messages: `--kubeconfig FILE`, `KUBECONFIG (a:b)`, `~/.kube/config`, the service account. */
  readonly origin: string;
}

/** Where Kubernetes mounts a pod's service-account token, CA and namespace. */
const serviceAccountDirectory = 'var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The cluster connection kubectl would use: `--in-cluster`, else `--kubeconfig FILE`, else the
 * files of `$KUBECONFIG` (a `:`-separated list merged as kubectl merges them: the first file to
 * set a value wins; missing files are skipped), else `~/.kube/config`, else the pod's service
 * account when running in a pod. Paths inside a kubeconfig resolve against its directory.
 * `--context` selects a context instead of the current one.
 */
export async function loadKubeconfig(flags: ClusterFlags): Promise<LoadedKubeconfig> {
  const root = resolve(flags.serviceAccountRoot ?? '/');
  if (flags.inCluster) {
    if (flags.kubeconfig !== undefined) throw usageError('pass either --kubeconfig or --in-cluster, not both');
    return inClusterKubeconfig(root, flags.context);
  }
  const { KubeConfig } = await import('@kubernetes/client-node');
  if (flags.kubeconfig !== undefined) {
    return selectContext(await readKubeconfigFile(KubeConfig, flags.kubeconfig), `--kubeconfig ${flags.kubeconfig}`, flags.context);
  }
  const listed = (process.env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  if (listed.length > 0) {
    // kubectl skips the files of the list that do not exist; one that exists but is broken is an error.
    const present = listed.filter((path) => existsSync(path));
    if (present.length > 0) {
      const configs = await Promise.all(present.map((path) => readKubeconfigFile(KubeConfig, path)));
      return selectContext(mergeFirstWins(KubeConfig, configs), `KUBECONFIG (${present.join(delimiter)})`, flags.context);
    }
    if (isInCluster(root)) return inClusterKubeconfig(root, flags.context);
    throw inputError(`KUBECONFIG names no file that exists (${listed.join(delimiter)}); point it at a kubeconfig, or pass --kubeconfig FILE`);
  }
  const home = join(process.env.HOME || homedir(), '.kube', 'config');
  if (existsSync(home)) return selectContext(await readKubeconfigFile(KubeConfig, home), home, flags.context);
  if (isInCluster(root)) return inClusterKubeconfig(root, flags.context);
  throw usageError(
    `no cluster given: pass --kubeconfig FILE, set KUBECONFIG, write ${home}, or run in a pod (with its service account mounted, or --in-cluster)`,
  );
}

/**
 * One kubeconfig file, its relative paths made absolute against its directory: client-node's
 * `makePathsAbsolute` for certificate-authority, client-certificate and client-key; `token-file`
 * is read here (client-node would read it relative to the working directory, untrimmed).
 */
async function readKubeconfigFile(KubeConfigClass: typeof KubeConfig, path: string): Promise<KubeConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw inputError(`cannot read kubeconfig ${path}: ${(error as Error).message}`, error);
  }
  const directory = dirname(resolve(path));
  const { parse } = await import('yaml');
  let document: unknown;
  try {
    document = parse(text) ?? {};
  } catch (error) {
    throw inputError(`kubeconfig ${path} is not valid YAML: ${(error as Error).message}`, error);
  }
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw inputError(`kubeconfig ${path} is not a kubeconfig (a YAML mapping with clusters, users and contexts)`);
  }
  for (const entry of ((document as { users?: unknown }).users as Array<{ name?: string; user?: Record<string, unknown> }> | undefined) ?? []) {
    const user = entry?.user;
    const tokenFile = user?.['token-file'];
    if (typeof tokenFile !== 'string' || tokenFile === '') continue;
    // Read here, as client-go does: relative to this kubeconfig, whitespace trimmed.
    const tokenPath = isAbsolute(tokenFile) ? tokenFile : join(directory, tokenFile);
    try {
      if (user!.token === undefined) user!.token = (await readFile(tokenPath, 'utf8')).trim();
    } catch (error) {
      throw inputError(`kubeconfig ${path}: user ${entry.name ?? '?'}: cannot read its token-file ${tokenPath}: ${(error as Error).message}`, error);
    }
    delete user!['token-file'];
  }
  const config = new KubeConfigClass();
  try {
    config.loadFromString(JSON.stringify(document));
  } catch (error) {
    throw inputError(`kubeconfig ${path}: ${(error as Error).message}`, error);
  }
  config.makePathsAbsolute(directory);
  return config;
}

/** kubectl's merge of the KUBECONFIG files: clusters, users and contexts by name and the current context, the first file to set one wins. */
function mergeFirstWins(KubeConfigClass: typeof KubeConfig, configs: readonly KubeConfig[]): KubeConfig {
  const firstByName = <T extends { readonly name: string }>(lists: ReadonlyArray<readonly T[]>): T[] => {
    const chosen = new Map<string, T>();
    for (const item of lists.flat()) if (!chosen.has(item.name)) chosen.set(item.name, item);
    return [...chosen.values()];
  };
  const merged = new KubeConfigClass();
  merged.loadFromOptions({
    clusters: firstByName(configs.map((config) => config.getClusters())),
    users: firstByName(configs.map((config) => config.getUsers())),
    contexts: firstByName(configs.map((config) => config.getContexts())),
    currentContext: configs.map((config) => config.getCurrentContext()).find((name) => Boolean(name)) ?? '',
  });
  return merged;
}

function selectContext(config: KubeConfig, origin: string, requested: string | undefined): LoadedKubeconfig {
  const contexts = config.getContexts();
  const available = contexts.length > 0 ? `available contexts: ${contexts.map((context) => context.name).join(', ')}` : 'it has no contexts';
  const name = requested ?? config.getCurrentContext();
  if (!name) throw usageError(`${origin} sets no current-context: pass --context NAME (${available})`);
  const context = config.getContextObject(name);
  if (!context) {
    throw usageError(`context "${name}" ${requested !== undefined ? '(--context) ' : '(current-context) '}is not in ${origin}; ${available}`);
  }
  if (!config.getCluster(context.cluster)) {
    throw inputError(`context "${name}" of ${origin} names cluster "${context.cluster}", which is not defined there; add it to clusters or pick another --context`);
  }
  config.setCurrentContext(name);
  return { kubeconfig: config.exportConfig(), context: name, ...(context.namespace ? { namespace: context.namespace } : {}), origin };
}

/** Whether this process looks like it runs in a pod: the API server's address and a mounted token. */
function isInCluster(root: string): boolean {
  return Boolean(process.env.KUBERNETES_SERVICE_HOST && process.env.KUBERNETES_SERVICE_PORT) && existsSync(join(root, serviceAccountDirectory, 'token'));
}

/** The pod's service account as a kubeconfig, as client-go's in-cluster config (the token file is re-read as it rotates). */
async function inClusterKubeconfig(root: string, context: string | undefined): Promise<LoadedKubeconfig> {
  const problems: string[] = [];
  if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) problems.push('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
  for (const file of ['token', 'ca.crt']) {
    const path = join(root, serviceAccountDirectory, file);
    if (!existsSync(path)) problems.push(`${path} does not exist`);
  }
  if (problems.length > 0) {
    throw inputError(`--in-cluster: this does not look like a pod with a service account: ${problems.join('; ')}. Outside a cluster pass --kubeconfig FILE instead.`);
  }
  // Imported here: commands that never reach a cluster do not load the Kubernetes client.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  // client-node appends its absolute paths (/var/run/...) to the prefix.
  config.loadFromCluster(root === '/' ? '' : root.replace(/\/+$/, ''));
  const loaded = selectContext(config, "the pod's service account", context);
  const namespace = (await readFile(join(root, serviceAccountDirectory, 'namespace'), 'utf8').catch(() => '')).trim();
  return { ...loaded, ...(namespace ? { namespace } : {}) };
}

/** The namespace a command works in: `-n`, else the context's, else the command's own default (as kubectl, whose own default is `default`). */
export function namespaceFor(given: string | undefined, loaded: LoadedKubeconfig, fallback: string): string {
  return given ?? loaded.namespace ?? fallback;
}
