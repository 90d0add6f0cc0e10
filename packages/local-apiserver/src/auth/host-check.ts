import { isIP } from 'node:net';
import { forbidden, type StatusError } from '../errors.js';

/**
 * A defence against DNS rebinding: a web page whose own host name an attacker re-points at
 * 127.0.0.1 can send requests to a loopback server from the user's browser, with the attacker's
 * name in the `Host` header. So a server listening on a loopback address serves only requests
 * addressed to a loopback address or `localhost` at its own port; one listening on a specific
 * address, that address (or the loopback names); one listening on every interface (`0.0.0.0`,
 * `::`) is reachable under any name anyway and accepts any Host.
 */
export type HostCheck = (host: string | undefined) => StatusError | undefined;

export function isLoopbackAddress(address: string): boolean {
  const unmapped = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return (isIP(unmapped) === 4 && unmapped.startsWith('127.')) || address === '::1';
}

function isWildcard(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::' || address === '[::]';
}

/** `[::1]:6443` → `::1` and `6443`; `localhost` → `localhost` and no port. */
function splitHost(host: string): { name: string; port: string | undefined } {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return { name: host, port: undefined };
    const rest = host.slice(end + 1);
    return { name: host.slice(1, end), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 ? { name: host, port: undefined } : { name: host.slice(0, colon), port: host.slice(colon + 1) };
}

export function hostCheck(listenHost: string, port: number, tls: boolean): HostCheck {
  if (isWildcard(listenHost)) return () => undefined;
  const listenName = listenHost.replace(/^\[|\]$/g, '').toLowerCase();
  const loopbackListener = listenName === 'localhost' || isLoopbackAddress(listenName);
  const defaultPort = tls ? 443 : 80;
  const accepted = loopbackListener ? `localhost or a loopback address (127.0.0.1, [::1])` : `${listenHost.includes(':') ? `[${listenName}]` : listenName}, localhost or a loopback address`;
  return (host) => {
    const { name, port: given } = splitHost((host ?? '').trim().toLowerCase());
    const nameAccepted = name === 'localhost' || isLoopbackAddress(name) || (!loopbackListener && name === listenName);
    const portAccepted = given === undefined ? port === defaultPort : given === String(port);
    if (host !== undefined && nameAccepted && portAccepted) return undefined;
    return forbidden(
      `forbidden: the Host header ${host === undefined ? '(none)' : JSON.stringify(host)} does not name this server, which listens on ${listenHost} port ${port} and serves ` +
        `requests addressed to ${accepted} with port ${port} only (a defence against DNS rebinding); connect to the server by that address, or listen on 0.0.0.0 to accept any Host`,
      {},
    );
  };
}
