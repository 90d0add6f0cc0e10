import { createKeyedExtensionPoint } from '../kernel/extension-point.js';
import type { CatalogContent } from './model.js';

/** gRPC connectivity states, as upstream reports them in `status.connectionState.lastObservedState`. */
export type ConnectionState = 'IDLE' | 'CONNECTING' | 'READY' | 'TRANSIENT_FAILURE' | 'SHUTDOWN';

/** The parts of a CatalogSource spec a source type reads (plus the object's identity). */
export interface CatalogSourceRequest {
  readonly name: string;
  readonly namespace: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

/** An open catalog: it loads content on demand and reports its health. */
export interface CatalogConnection {
  load(): Promise<CatalogContent>;
  state(): ConnectionState;
  /** The address clients use, when there is one (`host:port`). */
  readonly address?: string;
  close(): Promise<void>;
}

/** A way to reach a catalog, keyed by CatalogSource `spec.sourceType` (`grpc`, `configmap`, …). */
export interface CatalogSourceType {
  readonly sourceType: string;
  open(request: CatalogSourceRequest): Promise<CatalogConnection>;
}

export const catalogSourceTypes = createKeyedExtensionPoint<CatalogSourceType>({
  id: 'olm.catalogSourceTypes',
  description: 'catalog source types by CatalogSource spec.sourceType',
  keyOf: (sourceType) => sourceType.sourceType,
  hint: 'boot the registry plugin (@olm/registry), which contributes grpc, configmap and directory sources',
});
