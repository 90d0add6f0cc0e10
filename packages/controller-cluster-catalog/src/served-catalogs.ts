import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openCatalogContent, writeCatalogContent, type CatalogContentRevision, type CatalogContentStore } from '@olm/catalog-http';
import type { Catalog } from '@olm/registry';

// A ClusterCatalog's name is a DNS subdomain; anything else never becomes a path.
const safeName = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The content of every served catalog, one disk-backed store each under `root/<name>`: what the HTTPS
 * server answers `/catalogs/<name>/…` from. A new revision replaces the old one atomically; a catalog
 * removed is no longer served (404) and its files are deleted.
 */
export class ServedCatalogs {
  private readonly stores = new Map<string, CatalogContentStore>();

  constructor(private readonly root: string) {}

  /** The store answering for `name`, or undefined (404). */
  get(name: string): CatalogContentStore | undefined {
    return this.stores.get(name);
  }

  has(name: string): boolean {
    return this.stores.has(name);
  }

  /** Writes the catalog's content as `name`'s new revision and serves it. */
  async serve(name: string, catalog: Catalog, now: Date): Promise<CatalogContentRevision> {
    if (!safeName.test(name)) throw new Error(`ClusterCatalog name ${JSON.stringify(name)} cannot name a content directory`);
    const directory = join(this.root, name);
    await writeCatalogContent(directory, catalog, now);
    const store = await openCatalogContent(directory);
    const previous = this.stores.get(name);
    this.stores.set(name, store);
    // requests already streaming the previous revision keep their open files
    void previous?.close();
    return store.revision;
  }

  /** Stops serving `name` and deletes its content. */
  async remove(name: string): Promise<void> {
    const store = this.stores.get(name);
    this.stores.delete(name);
    await store?.close();
    if (safeName.test(name)) await rm(join(this.root, name), { recursive: true, force: true });
  }

  async closeAll(): Promise<void> {
    const stores = [...this.stores.values()];
    this.stores.clear();
    await Promise.all(stores.map((store) => store.close()));
  }
}
