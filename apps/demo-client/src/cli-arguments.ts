/**
 * Where the server is: a Streamable HTTP URL (the headers to send it, and OAuth when asked for), or a command that
 * serves MCP over stdio.
 */
export type CliTarget =
  { url: string; headers: Record<string, string>; oauth?: CliOAuth } | { command: string; args: string[] };

/** OAuth 2.1 for an HTTP server (--oauth, --client-id, --client-secret, --scope): what the command line named. */
export interface CliOAuth {
  clientId?: string;
  clientSecret?: string;
  scope?: string[];
}

/** What to ask the server. */
export type CliAction =
  | { kind: 'tools' }
  | { kind: 'call'; name: string; args: Record<string, unknown>; task: boolean }
  | { kind: 'resources' }
  | { kind: 'read'; uri: string }
  | { kind: 'prompts' }
  | { kind: 'prompt'; name: string; args: Record<string, string> };

export interface CliInvocation {
  target: CliTarget;
  action: CliAction;
  era: 'auto' | 'legacy' | 'modern';
  /** Answer every sampling request with this text; without it the client offers no sampling. */
  sampleWith?: string;
  verbose: boolean;
}

/** A command line that cannot be run; the message says why. */
export class UsageError extends Error {}

export const USAGE = `usage: npm run client -- [options] <url | -- command [args…] [--]> <action>

actions (the answer is printed as JSON on stdout; logs go to stderr):
  tools                      list the tools
  call NAME [key=value…]     call a tool; a value is JSON when it parses as JSON, else a string
  resources                  list the resources and resource templates
  read URI                   read a resource
  prompts                    list the prompts
  prompt NAME [key=value…]   get a prompt (values are strings)

target:
  http://host:port/mcp       a Streamable HTTP endpoint
  -- command [args…]         a server spawned over stdio; its arguments end at the action, or at a second --

options:
  --era auto|legacy|modern   protocol era (default auto: server/discover, else initialize)
  --header NAME=VALUE        send this header with every request to an HTTP server (repeatable), e.g.
                             --header "Authorization=Bearer $TOKEN" (not with the OAuth options)
  --oauth                    sign in with OAuth 2.1 when the HTTP server asks for it: the authorization URL is
                             printed to stderr, and the browser's redirect comes back to a listener on 127.0.0.1
                             (the client registers itself dynamically unless --client-id is given)
  --client-id ID             with OAuth (implies --oauth): a client id registered at the authorization server
  --client-secret SECRET     with --client-id: the secret of a confidential client (other local users may see a
                             command line: prefer a public client)
  --scope A,B                with OAuth (implies --oauth): the scopes to ask for (comma or space separated,
                             repeatable) instead of the ones the server names
  --sample-with TEXT         answer every sampling request with TEXT (model "cli-fixed"); without it, none is offered
  --task                     with call: run the tool as a task and wait for its end (each change of its status is
                             logged with --verbose)
  --verbose                  log the client's and the server's messages to stderr
  --help                     this text

Elicitations are asked on the terminal, field by field, when stdin is a terminal, and declined otherwise.`;

const ACTIONS = new Set(['tools', 'call', 'resources', 'read', 'prompts', 'prompt']);
const ERAS = new Set(['auto', 'legacy', 'modern']);
const OAUTH_OPTIONS = '--oauth, --client-id, --client-secret and --scope';

/** Reads the command line (the arguments after the script); undefined when help was asked for. */
export function parseCliArguments(argv: readonly string[]): CliInvocation | undefined {
  let era: CliInvocation['era'] = 'auto';
  let sampleWith: string | undefined;
  let verbose = false;
  let task = false;
  let target: CliTarget | undefined;
  const words: string[] = [];
  const headers: Record<string, string> = {};
  const oauth: CliOAuth = {};
  let oauthAsked = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return undefined;
    if (arg === '--verbose') verbose = true;
    else if (arg === '--task') task = true;
    else if (arg === '--era') era = oneOf(valueOf(argv, ++i, '--era'), ERAS, '--era') as CliInvocation['era'];
    else if (arg === '--sample-with') sampleWith = valueOf(argv, ++i, '--sample-with');
    else if (arg === '--oauth') oauthAsked = true;
    else if (arg === '--client-id') oauth.clientId = nonEmpty(valueOf(argv, ++i, arg), arg);
    else if (arg === '--client-secret') oauth.clientSecret = nonEmpty(valueOf(argv, ++i, arg), arg);
    else if (arg === '--scope') oauth.scope = scopes(valueOf(argv, ++i, arg), oauth.scope);
    else if (arg === '--header') {
      const [name, value] = header(valueOf(argv, ++i, '--header'));
      headers[name] = value;
    } else if (arg === '--' && !target) {
      const end = commandEnd(argv, i + 1);
      if (end === i + 1) throw new UsageError('-- must be followed by the command that starts the server');
      target = { command: argv[i + 1], args: argv.slice(i + 2, end) };
      i = argv[end] === '--' ? end : end - 1;
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else if (!target) target = { url: checkedUrl(arg), headers };
    else words.push(arg);
  }
  if (!target) throw new UsageError('no server given: a URL, or -- and a command');
  if (!('url' in target) && Object.keys(headers).length)
    throw new UsageError('--header is for an HTTP server; a stdio server gets none');
  if (oauthAsked || Object.keys(oauth).length) {
    if (!('url' in target)) throw new UsageError(`${OAUTH_OPTIONS} are for an HTTP server; a stdio server gets none`);
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization'))
      throw new UsageError(`--header Authorization=… and ${OAUTH_OPTIONS} exclude each other: choose one`);
    if (oauth.clientSecret !== undefined && oauth.clientId === undefined)
      throw new UsageError('--client-secret needs --client-id');
    target.oauth = oauth;
  }
  if (task && words[0] !== 'call') throw new UsageError('--task is for call: only a tool call runs as a task');
  return { target, action: actionOf(words, task), era, sampleWith, verbose };
}

/** Where a stdio command's arguments end: at a second `--`, or at the first action word after the command. */
function commandEnd(argv: readonly string[], start: number): number {
  for (let i = start; i < argv.length; i++) {
    if (argv[i] === '--' || (i > start && ACTIONS.has(argv[i]))) return i;
  }
  return argv.length;
}

function actionOf(words: string[], task: boolean): CliAction {
  const [kind, ...rest] = words;
  const operand = (what: string) => {
    if (!rest[0]) throw new UsageError(`${kind} needs ${what}`);
    return rest[0];
  };
  const noMore = (from: number) => {
    if (rest.length > from) throw new UsageError(`unexpected arguments after ${kind}: ${rest.slice(from).join(' ')}`);
  };
  switch (kind) {
    case 'tools':
    case 'resources':
    case 'prompts':
      noMore(0);
      return { kind };
    case 'read':
      noMore(1);
      return { kind, uri: operand('a resource URI') };
    case 'call':
      return {
        kind,
        name: operand('a tool name'),
        args: Object.fromEntries(rest.slice(1).map((pair) => keyValue(pair, parseValue))),
        task,
      };
    case 'prompt':
      return {
        kind,
        name: operand('a prompt name'),
        args: Object.fromEntries(rest.slice(1).map((pair) => keyValue(pair, (value) => value))),
      };
    case undefined:
      throw new UsageError('no action given (tools, call, resources, read, prompts, prompt)');
    default:
      throw new UsageError(`unknown action ${kind}`);
  }
}

function keyValue<T>(pair: string, value: (text: string) => T): [string, T] {
  const at = pair.indexOf('=');
  if (at < 1) throw new UsageError(`expected key=value, got ${pair}`);
  return [pair.slice(0, at), value(pair.slice(at + 1))];
}

/** JSON when the text parses as JSON (`3`, `true`, `{"a":1}`, `"quoted"`), else the text itself. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// NAME=VALUE, NAME an HTTP header name and VALUE without line breaks (which would start another header).
function header(pair: string): [string, string] {
  const at = pair.indexOf('=');
  const name = at < 0 ? '' : pair.slice(0, at).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header needs NAME=VALUE, got ${pair}`);
  const value = pair.slice(at + 1).trim();
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value must be one line`);
  return [name, value];
}

// A repeated --scope adds to the ones before it.
function scopes(text: string, before: string[] = []): string[] {
  const list = text.split(/[\s,]+/).filter(Boolean);
  if (!list.length) throw new UsageError('--scope needs at least one scope');
  return [...new Set([...before, ...list])];
}

function nonEmpty(value: string, option: string): string {
  if (!value.trim()) throw new UsageError(`${option} needs a value`);
  return value;
}

function valueOf(argv: readonly string[], index: number, option: string): string {
  const value = argv[index];
  if (value === undefined) throw new UsageError(`${option} needs a value`);
  return value;
}

function oneOf(value: string, allowed: Set<string>, option: string): string {
  if (!allowed.has(value)) throw new UsageError(`${option} must be one of ${[...allowed].join(', ')}`);
  return value;
}

function checkedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`not a URL: ${text} (a stdio server is given as -- command args…)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`not an http(s) URL: ${text}`);
  return url.href;
}
