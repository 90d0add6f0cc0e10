import { describe, expect, it } from 'vitest';
import { hostCheck } from './host-check.js';

const accepted = (listen: string, host: string | undefined, port = 6443, tls = true): boolean => hostCheck(listen, port, tls)(host) === undefined;

describe('Host header check (DNS rebinding)', () => {
  it('on a loopback address, accepts loopback names at the server port only', () => {
    for (const host of ['localhost:6443', '127.0.0.1:6443', '127.9.9.9:6443', '[::1]:6443', 'LocalHost:6443']) expect(accepted('127.0.0.1', host)).toBe(true);
    for (const host of ['evil.example:6443', 'localhost:6444', 'localhost', '192.168.1.2:6443', '[::2]:6443', undefined, '', '127.0.0.1.nip.io:6443']) expect(accepted('127.0.0.1', host)).toBe(false);
    expect(accepted('::1', '[::1]:6443')).toBe(true);
  });

  it('accepts a port-less Host when the server listens on the scheme default port', () => {
    expect(accepted('127.0.0.1', 'localhost', 443, true)).toBe(true);
    expect(accepted('127.0.0.1', 'localhost', 80, false)).toBe(true);
    expect(accepted('127.0.0.1', 'localhost', 80, true)).toBe(false);
  });

  it('on a specific address, accepts that address and the loopback names', () => {
    expect(accepted('192.0.2.10', '192.0.2.10:6443')).toBe(true);
    expect(accepted('192.0.2.10', 'localhost:6443')).toBe(true);
    expect(accepted('192.0.2.10', 'evil.example:6443')).toBe(false);
    expect(accepted('2001:db8::1', '[2001:db8::1]:6443')).toBe(true);
  });

  it('on every interface, accepts any Host', () => {
    for (const listen of ['0.0.0.0', '::']) expect(accepted(listen, 'evil.example:1')).toBe(true);
  });

  it('says what it accepts', () => {
    expect(hostCheck('127.0.0.1', 6443, true)('evil.example:6443')?.message).toContain('"evil.example:6443" does not name this server, which listens on 127.0.0.1 port 6443');
  });
});
