import { catalogRevisionAnnotation } from '../../src/local-olm.js';
import { eventually, type OlmUp } from './olm-up.js';

// Manifests and reads the end-to-end tests share, through kubectl as a user runs it.

export type Json = Record<string, any>;

export async function getJson(up: OlmUp, args: string[]): Promise<Json | undefined> {
  const result = await up.kubectl(['get', ...args, '-o', 'json']);
  return result.code === 0 ? (JSON.parse(result.stdout) as Json) : undefined;
}

export const operatorGroup = (namespace: string, targets: string[]) => `
apiVersion: v1
kind: Namespace
metadata: {name: ${namespace}}
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: ${namespace}, namespace: ${namespace}}
spec:
  targetNamespaces: [${targets.join(', ')}]
`;

export const subscription = (namespace: string, pkg: string, extra: Record<string, string> = {}) => `
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: ${pkg}, namespace: ${namespace}}
spec:
  name: ${pkg}
  source: ${extra.source ?? 'acme-examples'}
  sourceNamespace: olm
  channel: ${extra.channel ?? 'stable'}
${Object.entries(extra)
  .filter(([key]) => !['source', 'channel'].includes(key))
  .map(([key, value]) => `  ${key}: ${value}`)
  .join('\n')}
`;

export async function catalogRevision(up: OlmUp, sourceName: string): Promise<string | undefined> {
  const source = await getJson(up, ['catalogsource', sourceName, '-n', 'olm']);
  return source?.metadata?.annotations?.[catalogRevisionAnnotation];
}

export async function csvPhase(up: OlmUp, namespace: string, name: string): Promise<string | undefined> {
  return (await getJson(up, ['csv', name, '-n', namespace]))?.status?.phase as string | undefined;
}

export async function waitForSucceeded(up: OlmUp, namespace: string, name: string, timeoutMs = 90_000): Promise<void> {
  await eventually(
    `${namespace}/${name} Succeeded`,
    async () => ((await csvPhase(up, namespace, name)) === 'Succeeded' ? true : undefined),
    timeoutMs,
  );
}
