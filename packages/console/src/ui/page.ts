/** What a page gets from the shell, and what it gives back. */
export interface PageContext {
  readonly namespace: string;
  /** The route's parts after the page name (`#/packages/olm/acme/acme-database` → ['olm', 'acme', 'acme-database']). */
  readonly parts: readonly string[];
  navigate(hash: string): void;
  /** Says something to screen-reader users (the polite live region) and shows it. */
  announce(message: string): void;
}

export interface Page {
  readonly title: string;
  /** Whether live updates re-render it (not a page with a form being filled in). */
  readonly live: boolean;
  render(context: PageContext): Promise<Node>;
}
