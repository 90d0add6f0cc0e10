/**
 * Bounds on what one catalog load may decode. YAML aliases are bounded per document at parse time
 * (`@olm/untrusted-input`), but many documents under that bound add up: twenty 29 MB documents in one
 * file passed validation and then took rendering to 4.5 GB. Every loader (directory, ConfigMap) charges
 * one budget per catalog with these limits.
 *
 * "Decoded bytes" of a document: its JSON size with every alias written out when it has anchors, else
 * the length of its text (JSON and anchor-free YAML decode to about their own size). Decoded
 * `olm.bundle.object` manifests count too.
 */
export interface CatalogLimits {
  /** Largest catalog file, checked before it is read. */
  readonly maxFileBytes: number;
  /** Most decoded bytes of all documents of one file together. */
  readonly maxFileDecodedBytes: number;
  /** Most decoded bytes of the whole catalog (all files, manifests included). */
  readonly maxCatalogDecodedBytes: number;
  /** Most documents (blobs and decoded manifests) in the whole catalog. */
  readonly maxCatalogDocuments: number;
}

const MiB = 1024 * 1024;

/**
 * The certified-operators v4.18 catalog (59 files, 19.6 MB) decodes to 18.2 MB in 1,011 documents
 * and 36 manifests; its largest file is 2.9 MB. The defaults leave a wide margin (at least 14×)
 * while keeping a render or a served catalog far below a default Node heap.
 */
export const defaultCatalogLimits: CatalogLimits = Object.freeze({
  maxFileBytes: 64 * MiB,
  maxFileDecodedBytes: 128 * MiB,
  maxCatalogDecodedBytes: 256 * MiB,
  maxCatalogDocuments: 100_000,
});

/** The `olm catalog` flag that raises each limit, named in every refusal. */
export const catalogLimitFlags: Readonly<Record<keyof CatalogLimits, string>> = Object.freeze({
  maxFileBytes: '--max-file-bytes',
  maxFileDecodedBytes: '--max-file-decoded-bytes',
  maxCatalogDecodedBytes: '--max-catalog-decoded-bytes',
  maxCatalogDocuments: '--max-catalog-documents',
});

export function resolveCatalogLimits(limits: Partial<CatalogLimits> | undefined): CatalogLimits {
  return { ...defaultCatalogLimits, ...limits };
}

/** A refusal: which limit, and the words for the message and the hint. */
export interface CatalogLimitExceeded {
  readonly limit: keyof CatalogLimits;
  readonly message: string;
  readonly hint: string;
}

function exceeded(limit: keyof CatalogLimits, limits: CatalogLimits, what: string): CatalogLimitExceeded {
  return {
    limit,
    message: `${what}, over the limit of ${limits[limit]} (${limit}; raise it with ${catalogLimitFlags[limit]})`,
    hint: `if the catalog is meant to be this large, raise the limit: the loaders' option limits.${limit}, or ${catalogLimitFlags[limit]} of olm catalog validate|render|serve|graph`,
  };
}

/** Counts what one catalog load decodes, file by file, and says when a limit is crossed. */
export class CatalogBudget {
  readonly limits: CatalogLimits;
  private catalogBytes = 0;
  private catalogDocuments = 0;
  private fileBytes = 0;

  /** True once a catalog-wide limit was crossed: every further document would be refused too. */
  get catalogExhausted(): boolean {
    return this.catalogBytes > this.limits.maxCatalogDecodedBytes || this.catalogDocuments > this.limits.maxCatalogDocuments;
  }

  constructor(limits?: Partial<CatalogLimits>) {
    this.limits = resolveCatalogLimits(limits);
  }

  /** Checks a file's size before reading it. */
  checkFileSize(size: number): CatalogLimitExceeded | undefined {
    return size > this.limits.maxFileBytes ? exceeded('maxFileBytes', this.limits, `the file is ${size} bytes`) : undefined;
  }

  /** True once a limit of the current file or of the catalog was crossed. */
  get exhausted(): boolean {
    return this.catalogExhausted || this.fileBytes > this.limits.maxFileDecodedBytes;
  }

  /** Starts counting a new file (the catalog totals carry on). */
  startFile(): void {
    this.fileBytes = 0;
  }

  /** Charges one decoded document (`what` names it, e.g. `document 3 (line 120)`). */
  charge(decodedBytes: number, what: string): CatalogLimitExceeded | undefined {
    this.fileBytes += decodedBytes;
    this.catalogBytes += decodedBytes;
    this.catalogDocuments += 1;
    if (this.fileBytes > this.limits.maxFileDecodedBytes) {
      return exceeded('maxFileDecodedBytes', this.limits, `with ${what} the file decodes to ${this.fileBytes} bytes`);
    }
    if (this.catalogBytes > this.limits.maxCatalogDecodedBytes) {
      return exceeded('maxCatalogDecodedBytes', this.limits, `with ${what} the catalog decodes to ${this.catalogBytes} bytes`);
    }
    if (this.catalogDocuments > this.limits.maxCatalogDocuments) {
      return exceeded('maxCatalogDocuments', this.limits, `${what} is document number ${this.catalogDocuments} of the catalog`);
    }
    return undefined;
  }
}
