import { ProjectAnnotations } from './annotations.js';

/** One revision a Subscription installed: the CSV, its version, when it was first seen installed, and the plan. */
export interface InstallHistoryEntry {
  readonly csv: string;
  readonly version?: string;
  /** RFC 3339, when the catalog operator first saw the CSV as the Subscription's `installedCSV`. */
  readonly installedAt: string;
  readonly installPlan?: string;
}

/** Revisions kept on a Subscription: enough to roll back, small enough for an annotation. */
export const maxInstallHistoryEntries = 20;

const isEntry = (value: unknown): value is InstallHistoryEntry => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.csv === 'string' &&
    typeof entry.installedAt === 'string' &&
    (entry.version === undefined || typeof entry.version === 'string') &&
    (entry.installPlan === undefined || typeof entry.installPlan === 'string')
  );
};

/**
 * The history recorded on an object's annotations, oldest first. Anyone can edit annotations, so what is
 * not a list of entries is skipped rather than trusted (an unreadable annotation reads as no history).
 */
export function readInstallHistory(annotations: Readonly<Record<string, string>> | undefined): InstallHistoryEntry[] {
  const value = annotations?.[ProjectAnnotations.installHistory];
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
  } catch {
    return [];
  }
}

/** The history with `entry` appended, unless it already ends with that CSV; the oldest entries beyond the bound dropped. */
export function appendInstallHistory(history: readonly InstallHistoryEntry[], entry: InstallHistoryEntry): InstallHistoryEntry[] {
  if (history.at(-1)?.csv === entry.csv) return [...history];
  return [...history, entry].slice(-maxInstallHistoryEntries);
}
