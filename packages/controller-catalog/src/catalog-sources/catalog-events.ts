import { describeError, type Logger, type ReconcilerEventSource, type ReconcileRequest } from '@olm/core';
import type { CatalogSourceKey } from './catalog-source-connections.js';

/** Something that happened to one catalog, told to whoever listens (the reconcilers' event sources). */
export class CatalogSignal {
  private readonly listeners = new Set<(key: CatalogSourceKey) => void>();

  constructor(private readonly logger: Logger) {}

  subscribe(listener: (key: CatalogSourceKey) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(key: CatalogSourceKey): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(key);
      } catch (error) {
        this.logger.error('catalog event listener threw', { catalogSource: `${key.namespace}/${key.name}`, error: describeError(error) });
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }

  /** An event source for a reconciler: each catalog event becomes the requests `map` gives. */
  eventSource(map: (key: CatalogSourceKey) => readonly ReconcileRequest[]): ReconcilerEventSource {
    return {
      subscribe: (enqueue) =>
        this.subscribe((key) => {
          for (const request of map(key)) enqueue(request);
        }),
    };
  }
}

/** What the catalog connections tell the reconcilers. */
export interface CatalogEvents {
  /** A registry connection changed state (went away, is connecting, came back): its CatalogSource is reconciled. */
  readonly connectionChanged: CatalogSignal;
  /** A catalog's cached content was dropped because it may serve other content now: the namespaces it serves resolve again. */
  readonly contentChanged: CatalogSignal;
}

export function createCatalogEvents(logger: Logger): CatalogEvents {
  return { connectionChanged: new CatalogSignal(logger), contentChanged: new CatalogSignal(logger) };
}
