/** A URL as it may be printed: as given, but for its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
