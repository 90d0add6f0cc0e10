/** What the `icon` subresource serves for a package without an icon: a plain grey box. */
export const defaultIcon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="8" y="16" width="48" height="40" rx="4" fill="#c8c8c8"/><path d="M8 24h48M24 16v8M40 16v8" stroke="#8d8d8f" stroke-width="3"/></svg>\n`;
