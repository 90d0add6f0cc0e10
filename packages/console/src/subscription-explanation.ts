import { Kinds, ProjectAnnotations, ProjectSubscriptionConditionTypes } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { approveHint, isWaitingForApproval } from './install-plan-approval.js';
import type { Json } from './json.js';

const packageManifestKind = { apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest' } as const;
const versionPinAnnotation = ProjectAnnotations.versionPin;

/** One reason the Subscription is where it is, and what to do about it. */
export interface Finding {
  readonly why: string;
  readonly todo?: string;
}

/** What `olm explain -o json|yaml` prints. */
export interface Explanation {
  readonly subscription: string;
  readonly namespace: string;
  readonly package: string;
  readonly catalog: string;
  readonly channel: string;
  readonly approval: string;
  readonly versionPin?: string;
  readonly installed?: { readonly csv: string; readonly version?: string; readonly phase?: string };
  /** The channel's versions, newest first, as the catalog offers them. */
  readonly offered: readonly { readonly csv: string; readonly version?: string }[];
  /** The other channels' heads. */
  readonly otherChannels: readonly { readonly channel: string; readonly head: string; readonly version?: string }[];
  readonly findings: readonly Finding[];
}

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * What is installed, what the catalog offers, and why this version and not a newer one (a failing
 * resolution, an approval, an unpack, a pin, the channel's head, a missing upgrade edge, an unhealthy
 * CSV), each with what to do. Reads only what `kubectl get` shows, with the client's own identity:
 * `olm explain` prints it and the console's "why" view shows it.
 */
export async function explainSubscription(client: KubeClient, subscription: Json): Promise<Explanation> {
  const namespace = subscription.metadata!.namespace!;
  const packageName = String(subscription.spec?.name ?? '');
  const manifest = (await client.list<Json>(packageManifestKind, { namespace }).catch(() => ({ items: [] as Json[] }))).items.find(
    (candidate) => candidate.status?.packageName === packageName && candidate.status?.catalogSource === subscription.spec?.source && candidate.status?.catalogSourceNamespace === subscription.spec?.sourceNamespace,
  );
  const channelName = String(subscription.spec?.channel || manifest?.status?.defaultChannel || '');
  const channels = (manifest?.status?.channels ?? []) as Array<{ name: string; currentCSV: string; entries?: Array<{ name: string; version?: string }> }>;
  const channel = channels.find((candidate) => candidate.name === channelName);
  const offered = (channel?.entries ?? []).map((entry) => ({ csv: entry.name, ...(entry.version ? { version: entry.version } : {}) }));
  const installedName = subscription.status?.installedCSV as string | undefined;
  const csv = installedName ? await client.find<Json>({ ...Kinds.clusterServiceVersion, namespace, name: installedName }) : undefined;
  const planName = subscription.status?.installPlanRef?.name as string | undefined;
  const plan = planName ? await client.find<Json>({ ...Kinds.installPlan, namespace, name: planName }) : undefined;
  const pin = subscription.metadata?.annotations?.[versionPinAnnotation] as string | undefined;
  const explanation: Omit<Explanation, 'findings'> = {
    subscription: subscription.metadata!.name!,
    namespace,
    package: packageName,
    catalog: `${subscription.spec?.sourceNamespace}/${subscription.spec?.source}`,
    channel: channelName,
    approval: String(subscription.spec?.installPlanApproval ?? 'Automatic'),
    ...(pin ? { versionPin: pin } : {}),
    ...(installedName ? { installed: { csv: installedName, ...(csv?.spec?.version ? { version: csv.spec.version } : {}), ...(csv?.status?.phase ? { phase: csv.status.phase } : {}) } } : {}),
    offered,
    otherChannels: channels
      .filter((candidate) => candidate.name !== channelName)
      .map((candidate) => ({ channel: candidate.name, head: candidate.currentCSV, ...versionOf(candidate.entries, candidate.currentCSV) })),
  };
  return { ...explanation, findings: findingsOf(explanation, subscription, csv, plan, Boolean(manifest), channel?.currentCSV) };
}

const versionOf = (entries: ReadonlyArray<{ name: string; version?: string }> | undefined, csv: string) => {
  const version = entries?.find((entry) => entry.name === csv)?.version;
  return version ? { version } : {};
};

/** The reasons, most pressing first. */
function findingsOf(explanation: Omit<Explanation, 'findings'>, subscription: Json, csv: Json | undefined, plan: Json | undefined, hasManifest: boolean, head: string | undefined): Finding[] {
  const conditions = (subscription.status?.conditions ?? []) as Condition[];
  const active = (type: string) => conditions.find((condition) => condition.type === type && condition.status === 'True');
  const { namespace, subscription: name } = explanation;
  const findings: Finding[] = [];
  const failed = active('ResolutionFailed');
  if (failed) {
    const [problem, fix] = (failed.message ?? '').split(' Fix: ');
    findings.push({ why: `resolution fails (${failed.reason}): ${problem}`, todo: fix ?? 'change the Subscription or the catalogs so that the constraints in the message can hold' });
  }
  const unpackFailed = active('BundleUnpackFailed');
  if (unpackFailed) findings.push({ why: `the bundle image cannot be unpacked (${unpackFailed.reason}): ${unpackFailed.message}`, todo: 'fix the image or its pull secret (the CatalogSource\'s spec.secrets); OLM tries again when the catalog changes' });
  if (active('BundleUnpacking')) findings.push({ why: `the bundle image is being unpacked: ${active('BundleUnpacking')!.message}` });
  if (plan && isWaitingForApproval(plan)) {
    findings.push({
      why: `${subscription.status?.currentCSV} waits for approval in InstallPlan ${plan.metadata!.name} (approval Manual)`,
      todo: `${approveHint(namespace, plan.metadata!.name!)} (or olm upgrade ${explanation.package} -n ${namespace} to see what it changes)`,
    });
  }
  const planFailed = active('InstallPlanFailed');
  if (planFailed) findings.push({ why: `InstallPlan ${plan?.metadata?.name ?? ''} failed: ${planFailed.message}`, todo: 'fix what the message names, then delete the failed InstallPlan so that OLM plans again' });
  const pinned = active(ProjectSubscriptionConditionTypes.VersionPinned);
  if (pinned) findings.push({ why: `a newer version waits: ${pinned.message}`, todo: `kubectl annotate subscription ${name} -n ${namespace} ${versionPinAnnotation}- (or set a wider range)` });
  if (csv && csv.status?.phase && csv.status.phase !== 'Succeeded') {
    findings.push({ why: `CSV ${csv.metadata!.name} is ${csv.status.phase}${csv.status.reason ? ` (${csv.status.reason})` : ''}: ${csv.status.message ?? ''}`.trim(), todo: `kubectl describe csv ${csv.metadata!.name} -n ${namespace}` });
  }
  if (!hasManifest) {
    findings.push({ why: `no PackageManifest of ${explanation.package} from catalog ${explanation.catalog} is served here, so what the catalog offers is unknown`, todo: 'check the CatalogSource (kubectl get catalogsource -A) and the packageserver (kubectl get packagemanifests -n ' + namespace + ')' });
  }
  const installed = explanation.installed?.csv;
  if (findings.length === 0 && installed && head) {
    if (installed === head) {
      const newer = explanation.otherChannels.filter((other) => other.head !== head);
      findings.push({
        why: `${installed} is the head of channel ${explanation.channel}: nothing newer is offered in it`,
        ...(newer.length > 0 ? { todo: `other channels offer ${newer.map((other) => `${other.head} (${other.channel})`).join(', ')}; to move: kubectl patch subscription ${name} -n ${namespace} --type merge -p '{"spec":{"channel":"${newer[0]!.channel}"}}'` } : {}),
      });
    } else {
      findings.push({
        why: `${head} is the head of channel ${explanation.channel}, but the catalog has no upgrade edge (replaces, skips or skipRange) that leads from ${installed} to a newer version`,
        todo: `ask the catalog's authors for an edge, or reinstall at the newer version (olm uninstall ${explanation.package} -n ${namespace}, then olm install ${explanation.package} --version ...)`,
      });
    }
  }
  if (findings.length === 0 && !installed) findings.push({ why: 'nothing is installed yet and nothing is reported as in the way', todo: `watch it with olm status -n ${namespace}` });
  return findings;
}

export function formatExplanation(explanation: Explanation): string {
  const lines = [
    `Subscription ${explanation.namespace}/${explanation.subscription}: package ${explanation.package}, channel ${explanation.channel || '(default)'} of catalog ${explanation.catalog}, approval ${explanation.approval}` +
      (explanation.versionPin ? `, pinned to ${JSON.stringify(explanation.versionPin)}` : ''),
    explanation.installed
      ? `Installed: ${explanation.installed.csv}${explanation.installed.version ? ` (version ${explanation.installed.version})` : ''}${explanation.installed.phase ? `, ${explanation.installed.phase}` : ''}`
      : 'Installed: nothing yet',
    `Offered in channel ${explanation.channel}: ${explanation.offered.map((entry) => entry.version ?? entry.csv).join(', ') || 'nothing'}`,
  ];
  if (explanation.otherChannels.length > 0) lines.push(`Other channels: ${explanation.otherChannels.map((other) => `${other.channel} (head ${other.version ?? other.head})`).join(', ')}`);
  lines.push('Why:');
  for (const finding of explanation.findings) {
    lines.push(`  - ${finding.why}`);
    if (finding.todo) lines.push(`    what to do: ${finding.todo}`);
  }
  return `${lines.join('\n')}\n`;
}
