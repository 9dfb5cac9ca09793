/**
 * The parent's environment variables a spawned server inherits; everything else (tokens, cloud credentials,
 * `NODE_OPTIONS`, which could make a Node child load code) stays with us. POSIX: the identity, shell and locale
 * variables a login needs (the list sudo keeps, plus the locale, time zone and temporary directory). Windows: what
 * programs need to find the system, the user's folders and the temporary directory.
 */
export const INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMFILES',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'TMP',
        'USERNAME',
        'USERPROFILE',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'];

/** The safelisted variables of `process.env` that are set, skipping values that are exported shell functions. */
export function inheritedEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV_VARS) {
    const value = source[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}
