const MAX_TEMPLATE_LENGTH = 1024;
const MAX_EXPRESSIONS = 32;
const MAX_URI_LENGTH = 8192;

/** Values to expand: a string, or a list (undefined and empty lists are left out). */
export type UriTemplateVariables = Record<string, string | string[] | undefined>;

/** Variables read back from a URI: exploded variables (`{x*}`) are lists, the others strings. */
export type UriTemplateMatch = Record<string, string | string[]>;

/** Thrown by {@link UriTemplate.parse} for a malformed template. */
export class UriTemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UriTemplateError';
  }
}

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface OperatorRules {
  first: string;
  separator: string;
  named: boolean;
  ifEmpty: string;
  allowReserved: boolean;
  /** Characters that end this expression's text when matching (besides what follows it). */
  stops: string;
}

// RFC 6570 appendix A, plus the characters at which matching stops.
const OPERATORS: Record<Operator, OperatorRules> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false, stops: '/?#' },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true, stops: '' },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true, stops: '' },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false, stops: '/?#' },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false, stops: '?#' },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false, stops: '/?#' },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false, stops: '#' },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false, stops: '#' },
};

interface VarSpec {
  name: string;
  explode: boolean;
  prefix?: number;
}

interface Expression {
  operator: Operator;
  vars: VarSpec[];
}

type Part = string | Expression;

// varname, then an optional explode `*` or prefix `:1`–`:9999` (RFC 6570 section 2.3–2.4).
const VARSPEC = /^((?:\w|%[0-9A-Fa-f]{2})(?:\.?(?:\w|%[0-9A-Fa-f]{2}))*)(?:(\*)|:([1-9][0-9]{0,3}))?$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;
const PCT_ENCODED = /^%[0-9A-Fa-f]{2}/;

/**
 * An RFC 6570 URI template (levels 1–4) that expands variables into a URI and matches URIs back.
 *
 * Matching scans the URI once, left to right, with no backtracking: a literal must appear
 * verbatim; an expression's text runs until the literal that follows it (its first occurrence)
 * or, when an expression follows, that expression's leading character. `{var}` also stops at
 * `/`, `?` and `#`; `{+var}` and `{#var}` take anything. Query expressions (`{?a,b}{&c}`) are
 * read as name=value pairs in any order, ignoring unknown names. Values are percent-decoded.
 */
export class UriTemplate {
  /** Names of the template's variables, in order of appearance. */
  readonly variableNames: string[];

  private constructor(
    private readonly template: string,
    private readonly parts: Part[],
  ) {
    this.variableNames = parts.flatMap((part) => (typeof part === 'string' ? [] : part.vars.map((v) => v.name)));
  }

  /**
   * Parses a template; throws {@link UriTemplateError} for an unclosed or stray brace, an empty
   * expression, a bad variable name or modifier, a repeated variable, more than 32 expressions
   * or more than 1024 characters.
   */
  static parse(template: string): UriTemplate {
    if (template.length > MAX_TEMPLATE_LENGTH) {
      throw new UriTemplateError(`URI template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
    }
    const fail = (reason: string) =>
      new UriTemplateError(`Invalid URI template ${JSON.stringify(template)}: ${reason}`);
    const parts: Part[] = [];
    const names = new Set<string>();
    let expressions = 0;
    let literal = '';
    for (let i = 0; i < template.length; i++) {
      const char = template[i];
      if (char === '}') throw fail(`unmatched '}' at position ${i}`);
      if (char !== '{') {
        literal += char;
        continue;
      }
      const close = template.indexOf('}', i + 1);
      if (close === -1) throw fail(`unclosed '{' at position ${i}`);
      const body = template.slice(i + 1, close);
      if (body.includes('{')) throw fail(`'{' inside the expression at position ${i}`);
      if (literal) parts.push(literal);
      literal = '';
      const expression = parseExpression(body, fail);
      for (const { name } of expression.vars) {
        if (names.has(name)) throw fail(`variable "${name}" appears more than once`);
        names.add(name);
      }
      parts.push(expression);
      if (++expressions > MAX_EXPRESSIONS) throw fail(`more than ${MAX_EXPRESSIONS} expressions`);
      i = close;
    }
    if (literal) parts.push(literal);
    return new UriTemplate(template, parts);
  }

  /** Expands the template, percent-encoding values as each operator requires. */
  expand(variables: UriTemplateVariables): string {
    return this.parts.map((part) => (typeof part === 'string' ? part : expandExpression(part, variables))).join('');
  }

  /** Reads the variables back from `uri`, or returns null when it does not fit (or exceeds 8192 characters). */
  match(uri: string): UriTemplateMatch | null {
    if (uri.length > MAX_URI_LENGTH) return null;
    const found: UriTemplateMatch = {};
    let pos = 0;
    for (let i = 0; i < this.parts.length; i++) {
      const part = this.parts[i];
      if (typeof part === 'string') {
        if (!uri.startsWith(part, pos)) return null;
        pos += part.length;
        continue;
      }
      const group = [part];
      // A query and its continuations are read together: their pairs may come in any order.
      while (part.operator === '?' || part.operator === '&') {
        const next = this.parts[i + 1];
        if (typeof next === 'string' || next?.operator !== '&') break;
        group.push(next);
        i++;
      }
      const end = expressionEnd(uri, pos, part.operator, this.parts.slice(i + 1));
      if (end === -1 || !readExpression(group, uri.slice(pos, end), found)) return null;
      pos = end;
    }
    return pos === uri.length ? found : null;
  }

  toString(): string {
    return this.template;
  }
}

function parseExpression(body: string, fail: (reason: string) => UriTemplateError): Expression {
  if (body === '') throw fail('empty expression {}');
  const operator = ('+#./;?&'.includes(body[0]) ? body[0] : '') as Operator;
  if ('=,!@|'.includes(body[0])) throw fail(`reserved operator '${body[0]}' in {${body}}`);
  const list = body.slice(operator.length);
  if (list === '') throw fail(`no variable in {${body}}`);
  const vars = list.split(',').map((spec): VarSpec => {
    const m = VARSPEC.exec(spec);
    if (!m) throw fail(`bad variable ${JSON.stringify(spec)} in {${body}}`);
    return { name: m[1], explode: m[2] === '*', prefix: m[3] ? Number(m[3]) : undefined };
  });
  return { operator, vars };
}

function expandExpression({ operator, vars }: Expression, variables: UriTemplateVariables): string {
  const rules = OPERATORS[operator];
  const pieces: string[] = [];
  for (const spec of vars) {
    const value = variables[spec.name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    const encode = (text: string) => encodeValue(text, rules.allowReserved);
    const named = (text: string) => (rules.named ? `${spec.name}${text === '' ? rules.ifEmpty : `=${text}`}` : text);
    if (typeof value === 'string') {
      pieces.push(named(encode(spec.prefix ? [...value].slice(0, spec.prefix).join('') : value)));
    } else if (spec.explode) {
      pieces.push(value.map((item) => named(encode(item))).join(rules.separator));
    } else {
      pieces.push(named(value.map(encode).join(',')));
    }
  }
  return pieces.length === 0 ? '' : rules.first + pieces.join(rules.separator);
}

function encodeValue(text: string, allowReserved: boolean): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const char = String.fromCodePoint(text.codePointAt(i) as number);
    const triplet = allowReserved && char === '%' && PCT_ENCODED.exec(text.slice(i, i + 3));
    if (triplet) {
      out += triplet[0];
      i += 3;
      continue;
    }
    if (UNRESERVED.test(char) || (allowReserved && RESERVED.test(char))) out += char;
    else out += percentEncode(char);
    i += char.length;
  }
  return out;
}

function percentEncode(char: string): string {
  if (char.length === 1 && char >= '\uD800' && char <= '\uDFFF') return '%EF%BF%BD';
  // encodeURIComponent leaves these sub-delimiters alone; RFC 6570 encodes them.
  return encodeURIComponent(char).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Where the text of an expression starting at `pos` ends, or -1 when the URI cannot fit. It ends
 * at the first occurrence of the next literal, or earlier at a character the operator cannot
 * contain or at the leading character of an expression that follows.
 */
function expressionEnd(uri: string, pos: number, operator: Operator, rest: Part[]): number {
  const { first, stops } = OPERATORS[operator];
  if (first && uri[pos] !== first) return pos;
  const start = pos + first.length;
  const next = rest[0];
  const literal = rest.find((part): part is string => typeof part === 'string');
  const end = literal === undefined ? uri.length : uri.indexOf(literal, start);
  if (end === -1) return -1;
  const boundary = typeof next === 'object' ? OPERATORS[next.operator].first : '';
  let i = start;
  while (i < end && !stops.includes(uri[i]) && uri[i] !== boundary) i++;
  return typeof next === 'string' && i < end ? -1 : i;
}

/** Reads one expression (or a query group) from its text into `found`; false when it cannot. */
function readExpression(group: Expression[], text: string, found: UriTemplateMatch): boolean {
  const rules = OPERATORS[group[0].operator];
  if (rules.first && text === '') return true;
  const body = text.slice(rules.first.length);
  return rules.named
    ? readNamed(group, body, rules.separator, found)
    : readPositional(group[0].vars, body, rules.separator, found);
}

function readNamed(group: Expression[], body: string, separator: string, found: UriTemplateMatch): boolean {
  const specs = new Map(group.flatMap((expression) => expression.vars.map((spec) => [spec.name, spec] as const)));
  for (const pair of body.split(separator)) {
    const eq = pair.indexOf('=');
    const spec = specs.get(eq === -1 ? pair : pair.slice(0, eq));
    if (!spec) continue;
    const value = decode(eq === -1 ? '' : pair.slice(eq + 1));
    if (value === null) return false;
    const list = found[spec.name];
    if (!spec.explode) found[spec.name] = value;
    else if (Array.isArray(list)) list.push(value);
    else found[spec.name] = [value];
  }
  return true;
}

function readPositional(vars: VarSpec[], body: string, separator: string, found: UriTemplateMatch): boolean {
  // A lone unexploded variable takes the whole text: its separators could only be literal.
  const pieces = vars.length === 1 && !vars[0].explode ? [body] : body.split(separator);
  const decoded = pieces.map(decode);
  if (decoded.includes(null)) return false;
  const values = decoded as string[];
  const last = vars.length - 1;
  if (values.length > vars.length && !vars[last].explode) return false;
  vars.forEach((spec, index) => {
    if (index >= values.length) return;
    if (!spec.explode) found[spec.name] = values[index];
    else found[spec.name] = index === last ? values.slice(index) : [values[index]];
  });
  return true;
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
