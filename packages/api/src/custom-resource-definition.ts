import type { JSONSchemaProps } from '@olm/structural-schema';

/** `apiextensions.k8s.io/v1` CustomResourceColumnDefinition. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: Record<string, unknown> };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
}

export interface CustomResourceDefinitionNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

/** `apiextensions.k8s.io/v1` CustomResourceDefinition (the parts a manifest sets). */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    names: CustomResourceDefinitionNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CustomResourceDefinitionVersion[];
    preserveUnknownFields?: boolean;
  };
}
