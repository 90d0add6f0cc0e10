import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultAliasExpansionLimits, findExcessiveAliasing, indexOfYamlAnchor } from '@olm/untrusted-input';
import { parse as parseYaml } from 'yaml';
import { checkRequestBody } from './body-checks.js';
import type { Cluster, DeleteOptions, FieldValidation, PatchType, WriteOptions } from './cluster.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, type VersionInfo } from './discovery.js';
import { StatusError, badRequest, internalError, methodNotAllowed, pathNotFound, unsupportedMediaType } from './errors.js';
import { goJsonText, listObject, writeBuiltin } from './go-json.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import { serveHealth } from './health.js';
import { gvFromOpenApiPath, openApiV2Definitions, openApiV2Document, openApiV3Document, openApiV3Index } from './openapi.js';
import { encodeOpenApiV2 } from './openapi-v2-protobuf.js';
import { decodeKubernetesProtobuf, kubernetesProtobufMediaType } from './protobuf-body.js';
import { parseRoute, type Route } from './request-path.js';
import { groupVersion, type ResourceType } from './resource-type.js';
import { asPartialObjectMetadata, notAcceptable, partialMetadataContentType, partialMetadataRequested, partialObjectMetadataList } from './partial-object-metadata.js';
import { buildTable, tableContentType, wantsTable } from './table.js';
import { serveWatch } from './watch-stream.js';

/** The HTTP surface: routing, content negotiation, and one handler per verb (access control is in front). */
export interface HandlerOptions {
  readonly cluster: Cluster;
  /** The admission check of a request's writes (RBAC escalation prevention), from access control. */
  readonly admissionFor?: (request: IncomingMessage) => WriteOptions['admission'];
  readonly maxBodyBytes: number;
  readonly bookmarkIntervalMs: number;
  /** Registers an open watch so that stop() can end it; returns the unregister function. */
  readonly trackWatch: (close: () => void) => () => void;
  readonly serverAddress: () => string;
  /** What `/version` reports. */
  readonly version: VersionInfo;
}

type Query = URLSearchParams;

export function sendJson(response: ServerResponse, code: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = goJsonText(body);
  const warnings = headers['Warning'];
  // Warnings set earlier (a deprecated version's) come first; writeHead would replace them.
  const earlier = warnings === undefined ? undefined : response.getHeader('Warning');
  if (earlier !== undefined) headers = { ...headers, Warning: [...(Array.isArray(earlier) ? earlier : [String(earlier)]), ...(Array.isArray(warnings) ? warnings : [warnings ?? ''])] };
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private', ...headers });
  response.end(text);
}

export function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const apiError = error instanceof StatusError ? error : internalError(error instanceof Error ? error.message : String(error));
  sendJson(response, apiError.code, apiError.toStatus());
}

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    request.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!failed) resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      if (!failed) reject(error);
    });
  });
}

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function decodeDocument(buffer: Buffer, type: string, maxBodyBytes: number): unknown {
  const body = parseDocument(buffer, type, maxBodyBytes);
  checkRequestBody(body);
  return body;
}

function parseDocument(buffer: Buffer, type: string, maxBodyBytes: number): unknown {
  if (buffer.length === 0) return undefined;
  const text = buffer.toString('utf8');
  if (type === 'application/yaml' || type === 'application/apply-patch+yaml' || type === 'application/x-yaml' || type === 'text/yaml') {
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      // yaml allows each anchor about 100 uses (maxAliasCount), but 100 uses of a megabyte string
      // are still 100 MB once written out: findExcessiveAliasing below bounds the expanded size.
      value = parseYaml(text);
    } catch (error) {
      throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
    }
    // The body written out counts against the body limit: aliases must not make it larger than a plain body may be.
    const limits = { ...defaultAliasExpansionLimits, maxExpandedBytes: Math.min(maxBodyBytes, defaultAliasExpansionLimits.maxExpandedBytes) };
    const aliasing = indexOfYamlAnchor(text) >= 0 ? findExcessiveAliasing(value, limits) : undefined;
    if (aliasing !== undefined) throw badRequest(`error decoding YAML: ${aliasing.replace('(limit maxExpandedBytes)', '(the request body limit, server option maxRequestBodyBytes)')}`);
    return value;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (text.trim() === '') return undefined;
    throw badRequest(`couldn't get version/kind; json parse error: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const bodyTypes = new Set(['', 'application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', '*/*']);

function unknownFormat(accepted: string): never {
  throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${accepted}`);
}

function patchTypeOf(type: string): PatchType {
  switch (type) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
      return 'apply';
    default:
      return unknownFormat('application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json');
  }
}

function fieldValidationOf(query: Query): FieldValidation {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw badRequest(`fieldValidation: Unsupported value: "${value}": supported values: "Ignore", "Strict", "Warn"`);
}

function dryRunOf(query: Query): boolean {
  return dryRunValues(query.getAll('dryRun'));
}

/** Whether `dryRun` values (query parameters or DeleteOptions) ask for a dry run; only `All` exists. */
function dryRunValues(values: readonly unknown[]): boolean {
  for (const value of values) if (value !== 'All') throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  return values.length > 0;
}

function managerOf(query: Query, request: IncomingMessage): string {
  const explicit = query.get('fieldManager');
  if (explicit !== null && explicit !== '') {
    if (explicit.length > 128) throw badRequest('fieldManager: Too long: may not be longer than 128');
    return explicit;
  }
  const agent = request.headers['user-agent'] ?? '';
  return (agent.split('/')[0] ?? '').slice(0, 128) || 'unknown';
}

function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  return warnings.length === 0 ? {} : { Warning: warnings.map((warning) => `299 - ${JSON.stringify(warning)}`) };
}

export function createRequestHandler(options: HandlerOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const { cluster } = options;
  const registry = cluster.registry;

  const render = (type: ResourceType, version: string, object: KubeObject): KubeObject => cluster.toVersion(type, object, version);

  const handleResource = async (request: IncomingMessage, response: ServerResponse, route: Extract<Route, { kind: 'resource' }>, query: Query): Promise<void> => {
    const type = registry.lookup(route.group, route.version, route.plural);
    if (!type) throw pathNotFound();
    const method = request.method ?? 'GET';
    const { version } = route;
    const namespace = route.namespace;
    if (namespace !== undefined && !type.namespaced) throw pathNotFound();
    const subresource = route.subresource;
    if (subresource !== undefined) {
      const allowed =
        (subresource === 'status' && type.statusSubresource) || (subresource === 'scale' && type.scale !== undefined) || (subresource === 'finalize' && type.plural === 'namespaces' && type.group === '');
      if (!allowed) throw pathNotFound();
    }
    const deprecation = type.deprecationWarnings?.get(version);
    // Every request to a deprecated version says so, errors and watches included (as kube-apiserver does).
    if (deprecation !== undefined) response.setHeader('Warning', warningHeaders([deprecation])['Warning'] ?? []);
    const accept = request.headers.accept;
    const table = wantsTable(accept);
    const partialMetadata = table ? undefined : partialMetadataRequested(accept);
    const warnings: string[] = [];
    const admission = options.admissionFor?.(request);
    const writeOptions = () => ({ dryRun: dryRunOf(query), fieldManager: managerOf(query, request), fieldValidation: fieldValidationOf(query), warnings, ...(admission ? { admission } : {}) });
    const respondObject = (code: number, object: KubeObject): void => {
      if (table && method === 'GET') {
        sendJson(response, code, buildTable(type.columns?.(version) ?? [], [object], { includeObject: query.get('includeObject'), listMeta: { resourceVersion: object.metadata.resourceVersion } }), { 'Content-Type': tableContentType });
        return;
      }
      if (partialMetadata && method === 'GET') {
        if (partialMetadata !== 'PartialObjectMetadata') throw notAcceptable(partialMetadata, type, false);
        sendJson(response, code, asPartialObjectMetadata(object), { 'Content-Type': partialMetadataContentType(partialMetadata) });
        return;
      }
      sendJson(response, code, render(type, version, object), warningHeaders(warnings));
    };

    if (route.name === undefined) {
      // Collection.
      if (method === 'GET') {
        const watch = query.get('watch');
        const filter = cluster.filter(type, namespace, query.get('labelSelector'), query.get('fieldSelector'));
        if (watch === 'true' || watch === '1') {
          const timeout = query.get('timeoutSeconds');
          const columns = type.columns?.(version) ?? [];
          // Watch events carry single objects: PartialObjectMetadata, never a list.
          if (partialMetadata === 'PartialObjectMetadataList') throw notAcceptable(partialMetadata, type, false);
          serveWatch(
            response,
            {
              cluster,
              type,
              version,
              filter,
              resourceVersion: query.get('resourceVersion') ?? undefined,
              allowBookmarks: query.get('allowWatchBookmarks') === 'true',
              timeoutSeconds: timeout !== null && /^\d+$/.test(timeout) && Number(timeout) > 0 ? Number(timeout) : undefined,
              bookmarkIntervalMs: options.bookmarkIntervalMs,
              sendInitialEvents: query.get('sendInitialEvents') === 'true',
              render: table
                ? (object) => buildTable(columns, [render(type, version, object)], { includeObject: query.get('includeObject') })
                : partialMetadata
                  ? asPartialObjectMetadata
                  : (object) => render(type, version, object),
            },
            options.trackWatch,
          );
          return;
        }
        if (partialMetadata === 'PartialObjectMetadata') throw notAcceptable(partialMetadata, type, true);
        const limitText = query.get('limit');
        const limit = limitText !== null && /^\d+$/.test(limitText) ? Number(limitText) : undefined;
        const result = cluster.list(type, namespace, {
          labelSelector: query.get('labelSelector'),
          fieldSelector: query.get('fieldSelector'),
          ...(limit !== undefined ? { limit } : {}),
          continueToken: query.get('continue'),
        });
        const listMeta: JsonObject = { resourceVersion: result.resourceVersion };
        if (result.continueToken !== undefined) {
          listMeta['continue'] = result.continueToken;
          listMeta['remainingItemCount'] = result.remainingItemCount;
        }
        const items = result.items.map((item) => render(type, version, item));
        if (table) {
          sendJson(response, 200, buildTable(type.columns?.(version) ?? [], items, { includeObject: query.get('includeObject'), listMeta }), { 'Content-Type': tableContentType });
          return;
        }
        if (partialMetadata) {
          sendJson(response, 200, partialObjectMetadataList(listMeta, items), { 'Content-Type': partialMetadataContentType(partialMetadata) });
          return;
        }
        sendJson(response, 200, listObject(type, version, listMeta, items));
        return;
      }
      if (method === 'POST') {
        if (type.namespaced && namespace === undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
        const body = await readTypedBody(request, options.maxBodyBytes, warnings);
        const created = cluster.create(type, version, namespace, body, writeOptions());
        await cluster.store.durable();
        respondObject(201, created);
        return;
      }
      if (method === 'DELETE') {
        const body = await readTypedBody(request, options.maxBodyBytes);
        const deleted = cluster.deleteCollection(
          type,
          namespace,
          { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') },
          deleteOptionsOf(body, query, writeOptions()),
        );
        await cluster.store.durable();
        sendJson(response, 200, listObject(type, version, { resourceVersion: String(cluster.store.revision) }, deleted.map((item) => render(type, version, item))));
        return;
      }
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    }

    const name = route.name;
    if (type.namespaced && namespace === undefined) throw pathNotFound();
    if (subresource === 'scale') {
      await handleScale(request, response, type, version, namespace, name, query, writeOptions);
      return;
    }
    switch (method) {
      case 'GET': {
        const object = cluster.get(type, namespace, name);
        respondObject(200, object);
        return;
      }
      case 'PUT': {
        const body = await readTypedBody(request, options.maxBodyBytes, warnings);
        const updated = cluster.update(type, version, namespace, name, body, { ...writeOptions(), ...(subresource !== undefined ? { subresource } : {}) });
        await cluster.store.durable();
        respondObject(200, updated);
        return;
      }
      case 'PATCH': {
        const type_ = mediaType(request);
        const patchType = patchTypeOf(type_);
        const raw = await readBody(request, options.maxBodyBytes);
        const body = decodeDocument(raw, type_ === 'application/apply-patch+yaml' ? type_ : 'application/json', options.maxBodyBytes);
        if (body === undefined) throw badRequest('the body of the request was empty');
        const existed = cluster.tryGet(type, namespace, name) !== undefined;
        const force = query.get('force');
        if (force !== null && patchType !== 'apply') throw badRequest('force: Invalid value: true: may not be specified for non-apply patch');
        const patched = cluster.patch(type, version, namespace, name, patchType, body, {
          ...writeOptions(),
          fieldManager: patchType === 'apply' ? (query.get('fieldManager') ?? '') : managerOf(query, request),
          force: force === 'true',
          ...(subresource !== undefined ? { subresource } : {}),
        });
        await cluster.store.durable();
        respondObject(existed ? 200 : 201, patched);
        return;
      }
      case 'DELETE': {
        const body = await readTypedBody(request, options.maxBodyBytes);
        const result = cluster.delete(type, namespace, name, deleteOptionsOf(body, query, writeOptions()));
        await cluster.store.durable();
        if (result.deleted && !(type.group === '' && type.plural === 'pods')) {
          sendJson(
            response,
            200,
            writeBuiltin('Status', { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name, group: type.group, kind: type.plural, uid: result.object.metadata.uid } }),
          );
          return;
        }
        respondObject(200, result.object);
        return;
      }
      default:
        throw methodNotAllowed('the server does not allow this method on the requested resource');
    }
  };

  /** `…/scale`: an autoscaling/v1 Scale read and written in place of the object. */
  const handleScale = async (
    request: IncomingMessage,
    response: ServerResponse,
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    query: Query,
    writeOptions: () => { dryRun: boolean; fieldManager: string; fieldValidation: FieldValidation; warnings: string[] },
  ): Promise<void> => {
    switch (request.method) {
      case 'GET':
        sendJson(response, 200, writeBuiltin('Scale', cluster.getScale(type, namespace, name)));
        return;
      case 'PUT': {
        const body = await readTypedBody(request, options.maxBodyBytes);
        const scale = cluster.updateScale(type, version, namespace, name, body, writeOptions());
        await cluster.store.durable();
        sendJson(response, 200, writeBuiltin('Scale', scale));
        return;
      }
      case 'PATCH': {
        const contentType = mediaType(request);
        const patchType = patchTypeOf(contentType);
        const body = decodeDocument(await readBody(request, options.maxBodyBytes), contentType === 'application/apply-patch+yaml' ? contentType : 'application/json', options.maxBodyBytes);
        if (body === undefined) throw badRequest('the body of the request was empty');
        if (query.get('force') !== null && patchType !== 'apply') throw badRequest('force: Invalid value: true: may not be specified for non-apply patch');
        const scale = cluster.patchScale(type, version, namespace, name, patchType, body, {
          ...writeOptions(),
          fieldManager: patchType === 'apply' ? (query.get('fieldManager') ?? '') : managerOf(query, request),
        });
        await cluster.store.durable();
        sendJson(response, 200, writeBuiltin('Scale', scale));
        return;
      }
      default:
        throw methodNotAllowed('the server does not allow this method on the requested resource');
    }
  };

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const target = request.url ?? '/';
    const questionMark = target.indexOf('?');
    const query = new URLSearchParams(questionMark >= 0 ? target.slice(questionMark + 1) : '');
    let parsed: Route;
    try {
      parsed = parseRoute(questionMark >= 0 ? target.slice(0, questionMark) : target);
    } catch {
      throw badRequest(`malformed request path: ${target}`);
    }
    const method = request.method ?? 'GET';
    if (parsed.kind !== 'resource' && method !== 'GET' && method !== 'HEAD') throw methodNotAllowed('the server does not allow this method on the requested resource');
    switch (parsed.kind) {
      case 'version':
        sendJson(response, 200, options.version);
        return;
      case 'health':
        serveHealth(response, parsed.check, query);
        return;
      case 'api':
        sendJson(response, 200, apiVersions(options.serverAddress()));
        return;
      case 'apis':
        sendJson(response, 200, apiGroupList(registry));
        return;
      case 'group': {
        const document = apiGroup(registry, parsed.group);
        if (!document) throw pathNotFound();
        sendJson(response, 200, document);
        return;
      }
      case 'resourceList': {
        const document = apiResourceList(registry, parsed.group, parsed.version);
        if (!document) throw pathNotFound();
        sendJson(response, 200, document);
        return;
      }
      case 'openapiV3Index':
        sendJson(response, 200, openApiV3Index(registry));
        return;
      case 'openapiV3': {
        const gv = gvFromOpenApiPath(parsed.path);
        const document = gv ? openApiV3Document(registry, gv.group, gv.version, options.version.gitVersion) : undefined;
        if (!document) throw pathNotFound();
        sendJson(response, 200, document);
        return;
      }
      case 'openapiV2': {
        const accept = request.headers.accept ?? '';
        if (accept.includes('protobuf')) {
          const body = encodeOpenApiV2(openApiV2Definitions(registry), options.version.gitVersion);
          response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
          response.end(body);
          return;
        }
        sendJson(response, 200, openApiV2Document(registry, options.version.gitVersion));
        return;
      }
      case 'resource':
        await handleResource(request, response, parsed, query);
        return;
      default:
        throw pathNotFound();
    }
  };

  return (request, response) => {
    route(request, response).catch((error: unknown) => {
      try {
        sendError(response, error);
      } catch {
        response.destroy();
      }
    });
  };
}

export async function readTypedBody(request: IncomingMessage, limit: number, warnings?: string[]): Promise<unknown> {
  const type = mediaType(request);
  const raw = await readBody(request, limit);
  if (raw.length === 0) return undefined;
  if (type === kubernetesProtobufMediaType) return decodeKubernetesProtobuf(raw, warnings);
  if (!bodyTypes.has(type)) unknownFormat(`application/json, application/yaml, ${kubernetesProtobufMediaType}`);
  return decodeDocument(raw, type, limit);
}

function deleteOptionsOf(body: unknown, query: Query, base: { dryRun: boolean; fieldManager: string; warnings: string[] }): DeleteOptions {
  const options = isJsonObject(body) ? body : {};
  let policy = (options['propagationPolicy'] as string | undefined) ?? query.get('propagationPolicy') ?? undefined;
  const orphan = options['orphanDependents'] ?? (query.get('orphanDependents') === null ? undefined : query.get('orphanDependents') === 'true');
  if (policy === undefined && orphan === true) policy = 'Orphan';
  if (policy !== undefined && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const dryRun = Array.isArray(options['dryRun']) ? dryRunValues(options['dryRun']) || base.dryRun : base.dryRun;
  const preconditions = isJsonObject(options['preconditions']) ? (options['preconditions'] as { uid?: string; resourceVersion?: string }) : undefined;
  return {
    dryRun,
    fieldManager: base.fieldManager,
    warnings: base.warnings,
    ...(policy !== undefined ? { propagationPolicy: policy as 'Background' | 'Foreground' | 'Orphan' } : {}),
    ...(preconditions !== undefined ? { preconditions } : {}),
  };
}

