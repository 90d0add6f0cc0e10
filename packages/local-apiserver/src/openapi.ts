import { createHash } from 'node:crypto';
import type { JsonObject } from './kube-object.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';
import { serverVersion } from './discovery.js';

/**
 * Minimal OpenAPI: enough for kubectl to learn that PATCH takes `fieldValidation` (so `apply` validates
 * on the server) and for `kubectl explain` on CRDs. Built-in kinds get loose schemas.
 */
function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function reverseDomain(group: string): string {
  return group === '' ? 'io.k8s.api.core' : group.split('.').reverse().join('.');
}

export function schemaName(type: ResourceType, version: string): string {
  return `${reverseDomain(type.group)}.${version}.${type.kind}`;
}

const objectMetaSchema: JsonObject = {
  description: 'Standard object\'s metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
};

function resourceSchema(type: ResourceType, version: string): JsonObject {
  const gvk = [{ group: type.group, version, kind: type.kind }];
  const raw = type.schemas?.get(version)?.raw;
  const base: JsonObject = raw ? structuredClone(raw) : { type: 'object', description: `${type.kind} is a built-in Kubernetes kind.`, 'x-kubernetes-preserve-unknown-fields': true };
  const properties: JsonObject = { ...((base['properties'] as JsonObject | undefined) ?? {}) };
  properties['apiVersion'] ??= {
    description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  };
  properties['kind'] ??= {
    description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  };
  properties['metadata'] = objectMetaSchema;
  return { ...base, type: 'object', properties, 'x-kubernetes-group-version-kind': gvk };
}

function pathsFor(type: ResourceType, version: string): JsonObject {
  const prefix = `/${gvPath(type.group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
  const gvk = { group: type.group, version, kind: type.kind };
  const ref = { $ref: `#/components/schemas/${schemaName(type, version)}` };
  const ok = { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } };
  const parameters = [
    { name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } },
    ...(type.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }] : []),
  ];
  const query = (name: string): JsonObject => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true } });
  const patch = {
    operationId: `patch${type.kind}`,
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': gvk,
    parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map(query),
    requestBody: {
      content: {
        'application/json-patch+json': { schema: { type: 'object' } },
        'application/merge-patch+json': { schema: { type: 'object' } },
        'application/apply-patch+yaml': { schema: { type: 'object' } },
      },
      required: true,
    },
    responses: ok,
  };
  const item = {
    get: { operationId: `read${type.kind}`, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': gvk, responses: ok },
    put: {
      operationId: `replace${type.kind}`,
      'x-kubernetes-action': 'put',
      'x-kubernetes-group-version-kind': gvk,
      parameters: ['dryRun', 'fieldManager', 'fieldValidation'].map(query),
      requestBody: { content: { '*/*': { schema: ref } }, required: true },
      responses: ok,
    },
    patch,
    parameters,
  };
  const collection = {
    post: {
      operationId: `create${type.kind}`,
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': gvk,
      parameters: ['dryRun', 'fieldManager', 'fieldValidation'].map(query),
      requestBody: { content: { '*/*': { schema: ref } }, required: true },
      responses: ok,
    },
    parameters: parameters.filter((parameter) => parameter.name !== 'name'),
  };
  const paths: JsonObject = { [prefix]: collection, [`${prefix}/{name}`]: item };
  if (type.statusSubresource) paths[`${prefix}/{name}/status`] = { ...item, patch: { ...patch, operationId: `patch${type.kind}Status` } };
  return paths;
}

export function openApiV3Document(registry: ResourceRegistry, group: string, version: string, gitVersion = serverVersion.gitVersion): JsonObject | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const paths: JsonObject = {};
  const schemas: JsonObject = {};
  for (const type of types) {
    Object.assign(paths, pathsFor(type, version));
    schemas[schemaName(type, version)] = resourceSchema(type, version);
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: gitVersion }, paths, components: { schemas } };
}

/** `/openapi/v3`: one entry per group-version, with a hash that changes whenever its document does. */
export function openApiV3Index(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  for (const [group, versions] of registry.groups()) {
    for (const version of versions) {
      const document = openApiV3Document(registry, group, version);
      const hash = createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 128).toUpperCase();
      paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
    }
  }
  return { paths };
}

/**
 * `/openapi/v2` definitions (swagger 2.0 with group-version-kind extensions). Only custom resources
 * are described: old kubectl validates client-side against whatever it finds here, and the loose
 * schemas of built-ins would make it reject their fields; absent kinds are not validated.
 */
export function openApiV2Definitions(registry: ResourceRegistry): Record<string, JsonObject> {
  const definitions: Record<string, JsonObject> = {};
  for (const type of registry.all()) {
    if (type.schemas === undefined) continue;
    for (const version of type.versions) {
      const schema = resourceSchema(type, version);
      definitions[schemaName(type, version)] = { ...schema, properties: { ...(schema['properties'] as JsonObject), metadata: { type: 'object', description: objectMetaSchema['description'] } } };
    }
  }
  return definitions;
}

export function openApiV2Document(registry: ResourceRegistry, gitVersion = serverVersion.gitVersion): JsonObject {
  return { swagger: '2.0', info: { title: 'Kubernetes', version: gitVersion }, paths: {}, definitions: openApiV2Definitions(registry) };
}

export function gvFromOpenApiPath(path: string): { group: string; version: string } | undefined {
  const core = /^api\/([^/]+)$/.exec(path);
  if (core) return { group: '', version: core[1] ?? '' };
  const named = /^apis\/([^/]+)\/([^/]+)$/.exec(path);
  if (named) return { group: named[1] ?? '', version: named[2] ?? '' };
  return undefined;
}

