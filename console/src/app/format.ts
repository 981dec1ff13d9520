/* How the console writes times, counts and sizes. Times stay in UTC, as the API keeps them. */

/** `2026-11-28 10:04 UTC`; '—' for none. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `2026-11-28`; '—' for none. */
export function formatDate(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  return iso.slice(0, 10);
}

/** 12,345 ('∞' for no limit). */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined) return '∞';
  return value.toLocaleString('en-US');
}

/** 850 ms, 2.4 s, 3 min 5 s. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The time from one instant to another, or '—' while the second is missing. */
export function formatSpan(from: string | null, to: string | null): string {
  if (from === null || to === null) return '—';
  return formatDuration(new Date(to).getTime() - new Date(from).getTime());
}

/** 1.5 MB. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** 3 d 4 h, 5 h 2 min, 7 min. */
export function formatUptime(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return `${minutes} min`;
}

/** A datetime-local input's value (read as UTC) as an ISO time; '' stays ''. */
export function localInputToIso(value: string): string {
  return value === '' ? '' : new Date(`${value}:00Z`).toISOString();
}
