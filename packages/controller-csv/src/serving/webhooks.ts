import type { ClusterServiceVersion, CustomResourceDefinitionObject, WebhookConfiguration as WebhookConfigurationObject, WebhookDescription } from '@olm/api';
import { Labels, WebhookAdmissionTypes } from '@olm/api';
import type { CachedObject, KubeClient, ObjectKind, ObjectReader } from '@olm/core';
import { OlmError } from '@olm/core';
import { apiStatusCode, isNotFound, isSemanticallyEqual, updateObject, withoutManagedFields } from '@olm/controller-runtime';
import type { ServingAvailability } from './api-services.js';
import { secretMaterial, webhookPort, type ServingObjects } from './cert-resources.js';
import { ownerLabels, type CsvForDeployment } from '../install/deployment/deployment-strategy.js';
import { fieldManager, Kinds } from '../kinds.js';
import type { LabelSelector } from '@olm/label-selector';
import { hashOf } from '../spec-hash.js';

/**
 * A CSV's `webhookdefinitions` (upstream `install/webhook.go`): one Validating- or
 * MutatingWebhookConfiguration per description, named `<generateName>-<random>` and found again by
 * its owner labels and `olm.webhook-description-generate-name`, pointing at the serving deployment's
 * Service with its CA and limited to the OperatorGroup's target namespaces; conversion webhooks set
 * `spec.conversion` of the CRDs they convert.
 */

type CsvInput = ClusterServiceVersion & CsvForDeployment;
type JsonObject = Record<string, unknown>;

export const webhookDescriptionNameLabel = 'olm.webhook-description-generate-name';
/** A hash of the description: a configuration carrying another hash is outdated (its count as installed is 0). */
export const webhookDescriptionHashLabel = 'olm.webhook-description-hash';

type WebhookConfigurationKind = typeof Kinds.validatingWebhookConfiguration | typeof Kinds.mutatingWebhookConfiguration;
const webhookConfigurationKinds: readonly WebhookConfigurationKind[] = [Kinds.validatingWebhookConfiguration, Kinds.mutatingWebhookConfiguration];

export type WebhookConfiguration = WebhookConfigurationObject & CachedObject;
export type CrdConversionView = CustomResourceDefinitionObject & CachedObject;

/** What the webhook checks read of a sync's serving snapshot (`ServingSnapshot`). */
export interface WebhookSnapshot {
  /** The Validating- and MutatingWebhookConfigurations labelled as the CSV's (each with its apiVersion and kind). */
  readonly webhookConfigurations: readonly WebhookConfiguration[];
  /** The CRDs its conversion webhooks convert, by name; undefined when there is none. */
  readonly conversionCrds: ReadonlyMap<string, CrdConversionView | undefined>;
  /** Each serving deployment's Service and Secret, by deployment name. */
  readonly deployments: ReadonlyMap<string, ServingObjects>;
}

/** The service name of a webhook: its deployment's, dots made dashes (upstream `DomainName`). */
export const webhookServiceName = (webhook: Pick<WebhookDescription, 'deploymentName'>) => `${(webhook.deploymentName ?? '').replaceAll('.', '-')}-service`;

export function webhookDescriptionHash(webhook: WebhookDescription): string {
  return hashOf(webhook);
}

const selectorOf = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');

function ownedWebhookLabels(csv: CsvForDeployment, webhook?: WebhookDescription, withHash = false): Record<string, string> {
  return {
    ...ownerLabels(csv),
    ...(webhook ? { [webhookDescriptionNameLabel]: webhook.generateName } : {}),
    ...(webhook && withHash ? { [webhookDescriptionHashLabel]: webhookDescriptionHash(webhook) } : {}),
  };
}

/**
 * The namespaces a webhook of a CSV in this group sees (upstream `NamespaceLabelSelector`): those
 * labelled `olm.operatorgroup.uid/<uid>` for an explicit target list, the group's selector otherwise,
 * and every namespace (undefined) for an AllNamespaces group.
 */
export function webhookNamespaceSelector(group: { metadata?: { uid?: string }; spec?: { targetNamespaces?: readonly string[]; selector?: LabelSelector | null } }): LabelSelector | undefined {
  if ((group.spec?.targetNamespaces ?? []).length > 0) {
    if (!group.metadata?.uid) throw new OlmError('OLM_CSV_WEBHOOK', 'the OperatorGroup has no UID yet');
    return { matchLabels: { [`${Labels.operatorGroupUidPrefix}${group.metadata.uid}`]: '' } };
  }
  return group.spec?.selector ?? undefined;
}

const defined = (fields: JsonObject): JsonObject => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null));

/** The one webhook of a description's configuration (upstream `GetValidatingWebhook`/`GetMutatingWebhook`). */
export function desiredWebhook(csv: CsvForDeployment, webhook: WebhookDescription, caPem: string, namespaceSelector: LabelSelector | undefined): JsonObject {
  return defined({
    name: webhook.generateName,
    rules: webhook.rules,
    failurePolicy: webhook.failurePolicy,
    matchPolicy: webhook.matchPolicy,
    namespaceSelector,
    objectSelector: webhook.objectSelector,
    sideEffects: webhook.sideEffects,
    timeoutSeconds: webhook.timeoutSeconds,
    admissionReviewVersions: webhook.admissionReviewVersions,
    clientConfig: {
      service: defined({ name: webhookServiceName(webhook), namespace: csv.metadata.namespace, path: webhook.webhookPath, port: webhookPort(webhook) }),
      caBundle: Buffer.from(caPem, 'utf8').toString('base64'),
    },
    reinvocationPolicy: webhook.type === WebhookAdmissionTypes.MutatingAdmissionWebhook ? webhook.reinvocationPolicy : undefined,
  });
}

const configurationKind = (webhook: WebhookDescription): WebhookConfigurationKind | undefined =>
  webhook.type === WebhookAdmissionTypes.ValidatingAdmissionWebhook
    ? Kinds.validatingWebhookConfiguration
    : webhook.type === WebhookAdmissionTypes.MutatingAdmissionWebhook
      ? Kinds.mutatingWebhookConfiguration
      : undefined;

/** Whether the CSV supports AllNamespaces and no other install mode (upstream `isSingletonOperator`). */
export function supportsOnlyAllNamespaces(csv: ClusterServiceVersion): boolean {
  return (csv.spec.installModes ?? []).every((mode) => (mode.type === 'AllNamespaces') === mode.supported);
}

/**
 * Creates or updates each description's configuration, and points the CRDs of conversion webhooks at
 * their service (upstream `createOrUpdateWebhook`).
 */
export async function installWebhooks(client: KubeClient, csv: CsvInput, caBundles: ReadonlyMap<string, string>, cache: ObjectReader): Promise<void> {
  const webhooks = csv.spec.webhookdefinitions ?? [];
  if (webhooks.length === 0) return;
  const groups = cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace });
  if (groups.length !== 1) throw new OlmError('OLM_CSV_WEBHOOK', 'error retrieving OperatorGroup info');
  const namespaceSelector = webhookNamespaceSelector(groups[0]!);
  for (const webhook of webhooks) {
    const caPem = caBundles.get(webhook.deploymentName ?? '');
    // No such deployment in the strategy: the reconciler sends the CSV back (`calculated deployment install is bad`).
    if (caPem === undefined) continue;
    const kind = configurationKind(webhook);
    if (!kind) {
      await installConversionWebhook(client, csv, webhook, caPem);
      continue;
    }
    const desired = [desiredWebhook(csv, webhook, caPem, namespaceSelector)];
    const labels = ownedWebhookLabels(csv, webhook, true);
    const existing = await client.list(kind, { labelSelector: selectorOf(ownedWebhookLabels(csv, webhook)) });
    if (existing.items.length === 0) {
      await client.create({ ...kind, metadata: { generateName: `${webhook.generateName}-`, labels }, webhooks: desired }, { fieldManager });
      continue;
    }
    for (const configuration of existing.items) {
      const next = { ...configuration, ...kind, metadata: { ...configuration.metadata, labels: { ...(configuration.metadata?.labels ?? {}), ...labels } }, webhooks: desired };
      delete (next.metadata as { managedFields?: unknown }).managedFields;
      if (!isSemanticallyEqual(next, withoutManagedFields(configuration))) await client.replace(next, { fieldManager });
    }
  }
}

/** Sets `spec.conversion` of each of the webhook's CRDs (upstream `createOrUpdateConversionWebhook`). */
export async function installConversionWebhook(client: KubeClient, csv: CsvInput, webhook: WebhookDescription, caPem: string): Promise<void> {
  if (!supportsOnlyAllNamespaces(csv)) {
    throw new OlmError('OLM_CSV_CONVERSION_WEBHOOK', 'unable to manage conversion webhook: CSVs with conversion webhooks must support only AllNamespaces');
  }
  const crds = webhook.conversionCRDs ?? [];
  if (crds.length === 0) {
    throw new OlmError('OLM_CSV_CONVERSION_WEBHOOK', 'unable to manage conversion webhook: conversion webhook must have at least one CRD specified');
  }
  const owned = new Set((csv.spec.customresourcedefinitions?.owned ?? []).map((crd) => crd.name));
  for (const name of crds) {
    if (!owned.has(name)) throw new OlmError('OLM_CSV_CONVERSION_WEBHOOK', `csv ${csv.metadata.name} does not own CRD ${name}`);
    try {
      await updateObject<CrdConversionView>(client, { ...Kinds.customResourceDefinition, name }, (crd) => {
        if (crd.spec?.preserveUnknownFields) {
          throw new OlmError('OLM_CSV_CONVERSION_WEBHOOK', 'crd.Spec.PreserveUnknownFields must be false to let API Server call webhook to do the conversion');
        }
        crd.spec = {
          ...crd.spec,
          conversion: {
            strategy: 'Webhook',
            webhook: {
              clientConfig: {
                service: { namespace: csv.metadata.namespace, name: webhookServiceName(webhook), path: webhook.webhookPath ?? '/', port: webhookPort(webhook) },
                caBundle: Buffer.from(caPem, 'utf8').toString('base64'),
              },
              conversionReviewVersions: webhook.admissionReviewVersions,
            },
          },
        };
      }, { fieldManager });
    } catch (error) {
      if (isNotFound(error)) throw new OlmError('OLM_CSV_CONVERSION_WEBHOOK', `unable to get CRD ${name} specified in Conversion Webhook: ${(error as Error).message}`);
      throw error;
    }
  }
}

/** The CRDs the CSV's conversion webhooks convert, each once. */
export function conversionCrdNames(csv: ClusterServiceVersion): string[] {
  const webhooks = (csv.spec.webhookdefinitions ?? []).filter((webhook) => configurationKind(webhook) === undefined);
  return [...new Set(webhooks.flatMap((webhook) => webhook.conversionCRDs ?? []))];
}

/** The snapshot's configurations made for a description (of any description hash). */
function configurationsOf(snapshot: WebhookSnapshot, webhook: WebhookDescription, kind: ObjectKind): WebhookConfiguration[] {
  return snapshot.webhookConfigurations.filter(
    (configuration) => configuration.kind === kind.kind && configuration.metadata?.labels?.[webhookDescriptionNameLabel] === webhook.generateName,
  );
}

/** Deletes the CSV's configurations whose description is gone (upstream `cleanUpRemovedWebhooks`). */
async function deleteRemovedWebhooks(client: KubeClient, csv: CsvInput, configurations: readonly WebhookConfiguration[]): Promise<void> {
  const names = new Set((csv.spec.webhookdefinitions ?? []).map((webhook) => webhook.generateName));
  for (const configuration of configurations) {
    const name = configuration.metadata?.labels?.[webhookDescriptionNameLabel];
    if (name === undefined) throw new Error(`${configuration.kind} ${configuration.metadata?.name ?? ''} does not have WebhookDesc key`);
    if (names.has(name)) continue;
    await client.delete({ apiVersion: configuration.apiVersion!, kind: configuration.kind!, name: configuration.metadata?.name ?? '' }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}

/**
 * Upstream `areWebhooksAvailable`, on the sync's snapshot: configurations of removed descriptions are
 * deleted, each description has a configuration of its current hash, and each conversion CRD uses the
 * webhook with a CA bundle (else the error "conversionWebhook not ready").
 */
export async function webhooksAvailability(client: KubeClient, csv: CsvInput, snapshot: WebhookSnapshot): Promise<ServingAvailability> {
  try {
    await deleteRemovedWebhooks(client, csv, snapshot.webhookConfigurations);
  } catch (error) {
    if (apiStatusCode(error) === 503) return { available: false, retry: true };
    return { available: false, error: (error as Error).message };
  }
  for (const webhook of csv.spec.webhookdefinitions ?? []) {
    const kind = configurationKind(webhook);
    let count = 0;
    if (kind) {
      const hash = webhookDescriptionHash(webhook);
      count = configurationsOf(snapshot, webhook, kind).filter((configuration) => configuration.metadata?.labels?.[webhookDescriptionHashLabel] === hash).length;
    } else {
      for (const name of webhook.conversionCRDs ?? []) {
        const crd = snapshot.conversionCrds.get(name);
        if (!crd) return { available: false, error: `customresourcedefinitions.apiextensions.k8s.io "${name}" not found` };
        const conversion = crd.spec?.conversion;
        if (conversion?.strategy !== 'Webhook' || !conversion.webhook?.clientConfig?.caBundle) return { available: false, error: 'conversionWebhook not ready' };
        count += 1;
      }
    }
    if (count === 0) return { available: false };
  }
  return { available: true };
}

/**
 * The CA a webhook's deployment serves with, as the snapshot shows it (upstream `getWebhookCABundle`):
 * its configuration's, a conversion CRD's, or else the serving Secret's.
 */
export function webhookCaPem(snapshot: WebhookSnapshot, webhook: WebhookDescription): string | undefined {
  const decode = (value: string | undefined) => (value ? Buffer.from(value, 'base64').toString('utf8') : undefined);
  const kind = configurationKind(webhook);
  if (kind) return decode(configurationsOf(snapshot, webhook, kind)[0]?.webhooks?.[0]?.clientConfig?.caBundle);
  for (const name of webhook.conversionCRDs ?? []) {
    const bundle = decode(snapshot.conversionCrds.get(name)?.spec?.conversion?.webhook?.clientConfig?.caBundle);
    if (bundle) return bundle;
  }
  return secretMaterial(snapshot.deployments.get(webhook.deploymentName ?? '')?.secret).caPem;
}

/** The Validating- and MutatingWebhookConfigurations labelled as the CSV's, each with its apiVersion and kind. */
export async function listWebhookConfigurations(client: KubeClient, csv: CsvForDeployment): Promise<WebhookConfiguration[]> {
  const configurations: WebhookConfiguration[] = [];
  for (const kind of webhookConfigurationKinds) {
    // List items carry no apiVersion/kind of their own.
    for (const item of (await client.list(kind, { labelSelector: selectorOf(ownerLabels(csv)) })).items) configurations.push({ ...item, ...kind });
  }
  return configurations;
}

/** Deletes every webhook configuration labelled as the CSV's (on its deletion). */
export async function deleteWebhookConfigurations(client: KubeClient, csv: CsvForDeployment): Promise<void> {
  for (const configuration of await listWebhookConfigurations(client, csv)) {
    await client.delete({ apiVersion: configuration.apiVersion!, kind: configuration.kind!, name: configuration.metadata?.name ?? '' }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}
