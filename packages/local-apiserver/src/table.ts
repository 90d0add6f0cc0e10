import { timestampAge } from '@olm/go-format';
import { evaluateJsonPath } from './jsonpath.js';
import type { JsonObject, KubeObject } from './kube-object.js';
import type { PrinterColumn } from './resource-type.js';

/** `kubectl get` output: a meta.k8s.io/v1 `Table` built from printer columns. */
export const tableContentType = 'application/json;as=Table;v=v1;g=meta.k8s.io';

export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => /(^|;)\s*as=Table/.test(part) && /g=meta\.k8s\.io/.test(part));
}

export const nameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: (object) => object.metadata.name ?? '',
};

export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (object) => timestampAge(object.metadata.creationTimestamp),
};

export const createdAtColumn: PrinterColumn = {
  name: 'Created At',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (object) => object.metadata.creationTimestamp ?? '',
};

/** A CRD `additionalPrinterColumns` entry: JSONPath cell, dates humanised as the server does. */
export function jsonPathColumn(definition: { name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }): PrinterColumn {
  return {
    name: definition.name,
    type: definition.type,
    ...(definition.format !== undefined ? { format: definition.format } : {}),
    description: definition.description ?? `Custom resource definition column (in JSONPath format): ${definition.jsonPath}`,
    priority: definition.priority ?? 0,
    cell(object) {
      let values: unknown[];
      try {
        values = evaluateJsonPath(definition.jsonPath, object);
      } catch {
        return null;
      }
      if (values.length === 0) return null;
      if (definition.type === 'date') return timestampAge(values[0]);
      if (values.length === 1) {
        const [value] = values;
        return typeof value === 'object' && value !== null ? JSON.stringify(value) : value;
      }
      return values.map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value))).join(',');
    },
  };
}

function partialMetadata(object: KubeObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export function buildTable(
  columns: readonly PrinterColumn[],
  objects: readonly KubeObject[],
  options: { includeObject?: string | null; listMeta?: JsonObject; noHeaders?: boolean },
): JsonObject {
  const include = options.includeObject ?? 'Metadata';
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: options.listMeta ?? {},
    columnDefinitions: options.noHeaders
      ? null
      : columns.map((column) => ({
          name: column.name,
          type: column.type,
          format: column.format ?? '',
          description: column.description ?? '',
          priority: column.priority,
        })),
    rows: objects.map((object) => {
      const row: JsonObject = { cells: columns.map((column) => column.cell(object) ?? null) };
      if (include === 'Object') row['object'] = object;
      else if (include !== 'None') row['object'] = partialMetadata(object);
      return row;
    }),
  };
}
