import { gunzipSync, gzipSync } from 'node:zlib';
import { OwnerKindLabel, OwnerNameLabel, ownerLabels, type RenderPhaseName } from '@olm/bundle-render';
import type { KubeClient } from '@olm/core';
import { isNotFound } from '@olm/controller-runtime';
import type { CachedObject, KubeObject } from '@olm/core';
import { RevisionErrorCodes, revisionError } from './errors.js';
import type { BundleIdentity, RevisionOwner, ServiceAccountReference } from './types.js';

/**
 * Revisions are kept as immutable, gzip-compressed Secrets in one namespace, one per revision,
 * labelled with their owner, as upstream's Helm-based applier keeps its releases. The content never
 * changes once written; the state label moves Installing → Installed → Archived.
 */
export const RevisionLabel = 'olm.operatorframework.io/revision';
export const RevisionStateLabel = 'olm.operatorframework.io/revision-state';
export const OwnerUidAnnotation = 'olm.operatorframework.io/owner-uid';
export const BundleNameAnnotation = 'olm.operatorframework.io/bundle-name';
export const BundleVersionAnnotation = 'olm.operatorframework.io/bundle-version';
export const RevisionSecretType = 'olm.operatorframework.io/revision';
const contentKey = 'revision.json.gz';

export type RevisionState = 'Installing' | 'Installed' | 'Archived';

/** What one revision applies, as it applied it. */
export interface RevisionContent {
  readonly bundle: BundleIdentity;
  readonly serviceAccount: ServiceAccountReference;
  readonly phases: readonly { readonly name: RenderPhaseName; readonly objects: readonly KubeObject[] }[];
}

/** A revision as listed: its number, state and bundle, without its content. */
export interface RevisionSummary {
  readonly number: number;
  readonly state: RevisionState;
  readonly bundle: { readonly name: string; readonly version: string };
  readonly secretName: string;
}

export interface RevisionStoreLimits {
  readonly namespace: string;
  /** Revisions kept per owner: `maxRevisions`. */
  readonly maxRecords: number;
  /** The largest compressed record. */
  readonly maxRecordBytes: number;
  /** The largest record once decompressed: a record read back is bounded however it was written. */
  readonly maxContentBytes: number;
}

export class RevisionStore {
  constructor(
    private readonly client: KubeClient,
    private readonly limits: RevisionStoreLimits,
  ) {}

  /** The owner's revisions, oldest first: metadata only, so listing costs little whatever the records hold. */
  async list(owner: RevisionOwner): Promise<RevisionSummary[]> {
    const summaries: RevisionSummary[] = [];
    let next: string | undefined;
    do {
      const page = await this.client.list(
        { apiVersion: 'v1', kind: 'Secret' },
        { namespace: this.limits.namespace, labelSelector: `${OwnerKindLabel}=${ownerLabels(owner.name)[OwnerKindLabel]},${OwnerNameLabel}=${owner.name}`, metadataOnly: true, limit: 100, ...(next ? { continue: next } : {}) },
      );
      for (const item of page.items) {
        const summary = summaryOf(item);
        if (summary) summaries.push(summary);
      }
      next = page.continue;
    } while (next);
    // The applier keeps at most maxRevisions unfinished and maxRevisions in all once one completes: more were not written by it.
    if (summaries.length > 2 * this.limits.maxRecords) {
      throw revisionError(
        RevisionErrorCodes.invalidRecord,
        `ClusterExtension ${owner.name} has ${summaries.length} revision records in ${this.limits.namespace}, more than twice maxRevisions (${this.limits.maxRecords}) allows; ` +
          `delete the records not written by OLM (label ${OwnerNameLabel}=${owner.name}), or raise maxRevisions`,
        { owner: owner.name, records: summaries.length },
      );
    }
    return summaries.sort((left, right) => left.number - right.number);
  }

  async read(summary: RevisionSummary): Promise<RevisionContent> {
    const secret = await this.client.get<CachedObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: this.limits.namespace, name: summary.secretName });
    const encoded = secret.data?.[contentKey];
    if (typeof encoded !== 'string') throw this.invalid(summary, `has no data.${contentKey}`);
    let text: string;
    try {
      text = gunzipSync(Buffer.from(encoded, 'base64'), { maxOutputLength: this.limits.maxContentBytes }).toString('utf8');
    } catch (error) {
      throw this.invalid(summary, `cannot be decompressed within ${this.limits.maxContentBytes} bytes (${(error as Error).message})`);
    }
    try {
      return JSON.parse(text) as RevisionContent;
    } catch {
      throw this.invalid(summary, 'is not JSON');
    }
  }

  /**
   * Records' contents reduced to object identities, read one at a time: however many records there
   * are, at most one full content is held at once.
   */
  async readIdentities(summaries: readonly RevisionSummary[]): Promise<RevisionContent[]> {
    const contents: RevisionContent[] = [];
    for (const summary of summaries) {
      const content = await this.read(summary);
      const phases = content.phases.map((phase) => ({ name: phase.name, objects: phase.objects.map(identityOf) }));
      contents.push({ bundle: content.bundle, serviceAccount: content.serviceAccount, phases });
    }
    return contents;
  }

  /** Writes revision `number`, refusing a record over the size limit before anything is sent. */
  async create(owner: RevisionOwner, number: number, content: RevisionContent): Promise<RevisionSummary> {
    const compressed = gzipSync(Buffer.from(JSON.stringify(content), 'utf8'), { level: 9 });
    if (compressed.length > this.limits.maxRecordBytes) {
      throw revisionError(
        RevisionErrorCodes.limitExceeded,
        `revision ${number} of ClusterExtension ${owner.name} (bundle ${content.bundle.name}) is ${compressed.length} bytes compressed, ` +
          `more than maxRevisionBytes (${this.limits.maxRecordBytes}); a Secret holds at most 1 MiB, so the bundle cannot be recorded: make the bundle smaller`,
        { owner: owner.name, bytes: compressed.length, limit: this.limits.maxRecordBytes },
      );
    }
    const summary: RevisionSummary = { number, state: 'Installing', bundle: { name: content.bundle.name, version: content.bundle.version }, secretName: `${owner.name}-r${number}` };
    await this.client.create(this.recordSecret(owner, summary, compressed)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
      throw revisionError(RevisionErrorCodes.invalidInput, `the revision namespace ${this.limits.namespace} does not exist: create it, or set revisionNamespace to an existing namespace`, {
        field: 'revisionNamespace',
      });
    });
    return summary;
  }

  private recordSecret(owner: RevisionOwner, summary: RevisionSummary, compressed: Buffer): CachedObject {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: summary.secretName,
        namespace: this.limits.namespace,
        labels: { ...ownerLabels(owner.name), [RevisionLabel]: String(summary.number), [RevisionStateLabel]: summary.state },
        annotations: { [OwnerUidAnnotation]: owner.uid, [BundleNameAnnotation]: summary.bundle.name, [BundleVersionAnnotation]: summary.bundle.version },
      },
      type: RevisionSecretType,
      immutable: true,
      data: { [contentKey]: compressed.toString('base64') },
    } as CachedObject;
  }

  async setState(summary: RevisionSummary, state: RevisionState): Promise<RevisionSummary> {
    if (summary.state === state) return summary;
    await this.client.patch({ apiVersion: 'v1', kind: 'Secret', namespace: this.limits.namespace, name: summary.secretName }, { metadata: { labels: { [RevisionStateLabel]: state } } });
    return { ...summary, state };
  }

  async delete(summary: RevisionSummary): Promise<void> {
    try {
      await this.client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: this.limits.namespace, name: summary.secretName });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private invalid(summary: RevisionSummary, problem: string) {
    return revisionError(RevisionErrorCodes.invalidRecord, `revision record Secret ${this.limits.namespace}/${summary.secretName} ${problem}; delete it to let the revision be applied again`, {
      secret: summary.secretName,
    });
  }
}

function summaryOf(secret: CachedObject): RevisionSummary | undefined {
  const labels = secret.metadata?.labels ?? {};
  const annotations = secret.metadata?.annotations ?? {};
  const number = Number(labels[RevisionLabel]);
  const state = labels[RevisionStateLabel];
  if (!Number.isSafeInteger(number) || number < 1 || (state !== 'Installing' && state !== 'Installed' && state !== 'Archived')) return undefined;
  return {
    number,
    state,
    bundle: { name: annotations[BundleNameAnnotation] ?? '', version: annotations[BundleVersionAnnotation] ?? '' },
    secretName: secret.metadata?.name ?? '',
  };
}

function identityOf(object: KubeObject): KubeObject {
  const { name, namespace } = object.metadata;
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: { name, ...(namespace ? { namespace } : {}) } };
}
