import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { eventually, type OlmUp } from './olm-up.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** Debian's chromium (scripts/setup.sh installs it); CHROMIUM names another. */
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined. */
export function browserUnavailableReason(): string | undefined {
  if (!existsSync(chromiumPath)) return `no chromium at ${chromiumPath} (scripts/setup.sh installs Debian's chromium when run as root; or set CHROMIUM)`;
  return undefined;
}

export interface RunningConsole {
  readonly url: string;
  readonly origin: string;
  stop(): Promise<void>;
}

/** The built `olm console` against a kubeconfig, as a user runs it; resolves with the URL it prints. */
export async function startConsole(kubeconfig: string): Promise<RunningConsole> {
  const child: ChildProcess = spawn(process.execPath, [cli, 'console', '--kubeconfig', kubeconfig, '-n', 'operators'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await eventually('olm console to print its URL', async () => {
    if (child.exitCode !== null) throw new Error(`olm console exited with ${child.exitCode}: ${output}`);
    return /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(output)?.[1];
  });
  return {
    url,
    origin: new URL(url).origin,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * A ServiceAccount bound to the built-in `view` ClusterRole, and a kubeconfig with its token: a user
 * who may look but not change. `view` gets OLM's kinds the way upstream's aggregate-olm-view adds them.
 */
export async function viewOnlyKubeconfig(up: OlmUp, directory: string): Promise<string> {
  await up.kubectlOk(
    ['apply', '-f', '-'],
    `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: console-test-olm-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: 'true'}
rules:
  - apiGroups: [operators.coreos.com]
    resources: [clusterserviceversions, catalogsources, installplans, subscriptions, operatorgroups, operatorconditions]
    verbs: [get, list, watch]
  - apiGroups: [packages.operators.coreos.com]
    resources: [packagemanifests]
    verbs: [get, list, watch]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: viewer, namespace: operators}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: console-test-viewer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: viewer, namespace: operators}]
`,
  );
  const token = (await up.kubectlOk(['create', 'token', 'viewer', '-n', 'operators'])).trim();
  const config = parse(readFileSync(up.kubeconfig, 'utf8')) as { users: Array<{ name: string; user: Record<string, unknown> }> };
  for (const user of config.users) user.user = { token };
  const path = join(directory, 'viewer-kubeconfig');
  writeFileSync(path, stringify(config));
  return path;
}
