import type { CatalogSourceKey } from './catalog-source-connections.js';

/**
 * The CatalogSources this process has reconciled at least once: the catalog source reconciler marks
 * them, resolution waits for the others (their state is not known yet), and a deleted one is forgotten.
 */
export class ReconciledCatalogSources {
  private readonly keys = new Set<string>();

  markReconciled(key: CatalogSourceKey): void {
    this.keys.add(keyOf(key));
  }

  forget(key: CatalogSourceKey): void {
    this.keys.delete(keyOf(key));
  }

  wasReconciled(key: CatalogSourceKey): boolean {
    return this.keys.has(keyOf(key));
  }
}

const keyOf = (key: CatalogSourceKey) => `${key.namespace}/${key.name}`;
