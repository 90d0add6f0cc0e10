import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestAttributes } from './auth/request-info.js';
import type { UserInfo } from './auth/user-info.js';

/**
 * One request the server answered, in the terms of kube-apiserver's audit events (`verb`,
 * `objectRef`, `responseStatus.code`, `user.username`): what tests count to show how much load a
 * controller puts on the API server.
 */
export interface ServedRequest {
  /** kube's verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection` (lower-case method for other paths). */
  readonly verb: string;
  /** The URL path, without the query. */
  readonly path: string;
  /** The query string, without `?` (`labelSelector=…&limit=…`). */
  readonly query: string;
  readonly apiGroup: string;
  /** The plural resource (`configmaps`), '' for non-resource paths. */
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The response status code (a watch reports when its stream ends). */
  readonly code: number;
  /** Whom the request was admitted as ('' when refused before authentication). */
  readonly user: string;
}

/** Calls `onRequest` once per request, when its response has been sent (or the connection closed). */
export function observeRequests(
  next: (request: IncomingMessage, response: ServerResponse) => void,
  onRequest: (served: ServedRequest) => void,
  userOf: (request: IncomingMessage) => UserInfo | undefined,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      const url = request.url ?? '/';
      const attributes = requestAttributes(request.method ?? 'GET', url);
      const questionMark = url.indexOf('?');
      try {
        onRequest({
          verb: attributes.verb,
          path: attributes.path,
          query: questionMark >= 0 ? url.slice(questionMark + 1) : '',
          apiGroup: attributes.apiGroup,
          resource: attributes.resource,
          subresource: attributes.subresource,
          namespace: attributes.namespace,
          name: attributes.name,
          code: response.statusCode,
          user: userOf(request)?.username ?? '',
        });
      } catch {
        // An observer's failure must not touch the request it observes.
      }
    };
    response.once('finish', report);
    response.once('close', report);
    next(request, response);
  };
}
