/**
 * What AWS WAF refuses in a regular expression, read off the pattern by a small tokenizer rather
 * than by one big regex: an unescaped `(` means something else inside a character class, after a
 * backslash or inside `\Q…\E`, and only a tokenizer knows which.
 *
 * WAF takes PCRE syntax without: backreferences and capturing subexpressions, subroutine
 * references and recursion, conditionals, backtracking control verbs, `\C`, `\R`, `\K`, callouts,
 * atomic groups and possessive quantifiers, "large values of quantifiers", "large number of |
 * branches per pattern", and lookaround beyond "some zero-width assertions" (so all lookaround is
 * treated as unsupported). https://docs.aws.amazon.com/waf/latest/developerguide/waf-regex-pattern-support.html
 * Patterns are at most 200 characters (https://docs.aws.amazon.com/waf/latest/developerguide/limits.html).
 */

/** "Maximum number of characters in each regex pattern": 200. */
export const MAX_REGEX_CHARACTERS = 200;

/**
 * WAF names no number for "large values of quantifiers": this project reads it as any bound above
 * 20 in `{n}`, `{n,}` or `{n,m}`. A token of fixed length (64 hex digits) is better matched by a
 * size constraint plus a short character check than by a counted repeat WAF may refuse.
 */
export const MAX_QUANTIFIER_BOUND = 20;

/** Nor for "large number of | branches per pattern": at most 10 `|` in a whole pattern here. */
export const MAX_ALTERNATIONS = 10;

export type RegexToken =
  /** One character matched as itself, or `.`, `^`, `$`. */
  | { readonly kind: 'char'; readonly text: string; readonly index: number }
  /** A backslash escape, e.g. `\d`, `\1`, `\x{41}`, `\k<name>`. */
  | { readonly kind: 'escape'; readonly text: string; readonly index: number }
  /** `\Q…\E`: everything inside is literal. */
  | { readonly kind: 'quoted'; readonly text: string; readonly index: number }
  /** A character class `[…]`, whole. */
  | { readonly kind: 'class'; readonly text: string; readonly index: number }
  /**
   * `(` with whatever says what kind of group it is: `(`, `(?:`, `(?=`, `(?<`, `(?(1)`; `opens` is
   * false for items that are whole at their `)` (`(?i)`, `(?#…)`, `(*VERB)`, `(?R)`, `(?&name)`).
   */
  | { readonly kind: 'group'; readonly text: string; readonly index: number; readonly opens: boolean }
  | { readonly kind: 'close'; readonly text: ')'; readonly index: number }
  | { readonly kind: 'alternation'; readonly text: '|'; readonly index: number }
  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, with a lazy `?` or possessive `+` suffix when present. */
  | { readonly kind: 'quantifier'; readonly text: string; readonly index: number; readonly bounds: readonly number[]; readonly possessive: boolean };

export class RegexSyntaxError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
    this.name = 'RegexSyntaxError';
  }
}

/** Escapes whose argument is in braces or angle brackets (`\x{…}`, `\p{…}`, `\g{…}`, `\k<…>` …). */
const ESCAPES_WITH_ARGUMENT = new Set(['x', 'p', 'P', 'g', 'k', 'N', 'o']);
const BRACKETS: Readonly<Record<string, string>> = { '{': '}', '<': '>', "'": "'" };

/** The tokens of a pattern; throws RegexSyntaxError where the pattern cannot be read (WAF refuses those too). */
export function tokenizeRegex(pattern: string): RegexToken[] {
  const tokens: RegexToken[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    const start = i;
    if (c === '\\') {
      const escape = readEscape(pattern, i);
      if (escape.quoted) tokens.push({ kind: 'quoted', text: escape.text, index: start });
      else tokens.push({ kind: 'escape', text: escape.text, index: start });
      i += escape.text.length;
    } else if (c === '[') {
      const text = readClass(pattern, i);
      tokens.push({ kind: 'class', text, index: start });
      i += text.length;
    } else if (c === '(') {
      const group = readGroupOpening(pattern, i);
      tokens.push({ kind: 'group', index: start, ...group });
      i += group.text.length;
    } else if (c === ')') {
      tokens.push({ kind: 'close', text: ')', index: start });
      i += 1;
    } else if (c === '|') {
      tokens.push({ kind: 'alternation', text: '|', index: start });
      i += 1;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && countedRepeat(pattern, i))) {
      const quantifier = readQuantifier(pattern, i);
      tokens.push({ kind: 'quantifier', index: start, ...quantifier });
      i += quantifier.text.length;
    } else {
      tokens.push({ kind: 'char', text: c, index: start });
      i += 1;
    }
  }
  return tokens;
}

function readEscape(pattern: string, at: number): { text: string; quoted: boolean } {
  const letter = pattern[at + 1];
  if (letter === undefined) throw new RegexSyntaxError('the pattern ends with a lone backslash', at);
  if (letter === 'Q') {
    const end = pattern.indexOf('\\E', at + 2);
    return { text: end === -1 ? pattern.slice(at) : pattern.slice(at, end + 2), quoted: true };
  }
  const open = pattern[at + 2];
  if (ESCAPES_WITH_ARGUMENT.has(letter) && open !== undefined && open in BRACKETS) {
    const close = pattern.indexOf(BRACKETS[open], at + 3);
    if (close === -1) throw new RegexSyntaxError(`\\${letter}${open} is never closed`, at);
    return { text: pattern.slice(at, close + 1), quoted: false };
  }
  return { text: pattern.slice(at, at + 2), quoted: false };
}

/** A class from `[` to its `]`: a `]` right after `[` or `[^` is literal, `\]` is escaped, `[:alpha:]` is one item. */
function readClass(pattern: string, at: number): string {
  let i = at + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      if (i + 1 >= pattern.length) break;
      i += 2;
    } else if (c === '[' && pattern[i + 1] === ':') {
      const end = pattern.indexOf(':]', i + 2);
      i = end === -1 ? i + 1 : end + 2;
    } else if (c === ']') {
      return pattern.slice(at, i + 1);
    } else {
      i += 1;
    }
  }
  throw new RegexSyntaxError('a character class `[` is never closed', at);
}

/** Openings read up to their own `)`: a reference or callout by name or number, a condition. */
const WHOLE_TO_PARENTHESIS = new Set(['(?&', '(?P>', '(?P=', '(?C', '(?(']);

/** `(` and what follows it that decides the kind of group. */
function readGroupOpening(pattern: string, at: number): { text: string; opens: boolean } {
  const next = pattern[at + 1];
  const toParenthesis = (opens: boolean): { text: string; opens: boolean } => {
    const end = pattern.indexOf(')', at + 2);
    if (end === -1) throw new RegexSyntaxError(`\`${pattern.slice(at, at + 4)}\` is never closed`, at);
    return { text: pattern.slice(at, end + 1), opens };
  };
  if (next === '*') return toParenthesis(false);
  if (next !== '?') return { text: '(', opens: true };
  const rest = pattern.slice(at);
  if (rest.startsWith('(?#')) return toParenthesis(false);
  const opening = /^\(\?(?:<[=!]|P[<>=]|[-+]?\d+\)|R\)|[:|>=!<'&(C]|[a-zA-Z-]*[:)])/.exec(rest)?.[0];
  if (opening === undefined) throw new RegexSyntaxError(`an unknown group \`${rest.slice(0, 4)}\``, at);
  // A conditional's condition closes, the conditional itself stays open.
  if (WHOLE_TO_PARENTHESIS.has(opening)) return toParenthesis(opening === '(?(');
  return { text: opening, opens: !opening.endsWith(')') };
}

function countedRepeat(pattern: string, at: number): boolean {
  return /^\{\d+(?:,\d*)?\}/.test(pattern.slice(at));
}

function readQuantifier(pattern: string, at: number): { text: string; bounds: readonly number[]; possessive: boolean } {
  const counted = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(at));
  const base = counted ? counted[0] : pattern[at];
  const bounds = counted ? [counted[1], counted[2]].filter((n): n is string => n !== undefined && n !== '').map(Number) : [];
  const suffix = pattern[at + base.length];
  const possessive = suffix === '+';
  return { text: suffix === '+' || suffix === '?' ? base + suffix : base, bounds, possessive };
}

/** What WAF would refuse in a pattern, each as a sentence naming the construct and its position. */
export function regexProblems(pattern: string): string[] {
  const problems: string[] = [];
  const characters = [...pattern].length;
  if (characters > MAX_REGEX_CHARACTERS) problems.push(`${characters} characters, above WAF's ${MAX_REGEX_CHARACTERS}`);
  let tokens: RegexToken[];
  try {
    tokens = tokenizeRegex(pattern);
  } catch (error) {
    if (error instanceof RegexSyntaxError) return [...problems, `${error.message} (at ${error.index})`];
    throw error;
  }
  let depth = 0;
  for (const token of tokens) {
    const unsupported = unsupportedConstruct(token);
    if (unsupported) problems.push(`${unsupported} \`${token.text}\` at ${token.index}`);
    if (token.kind === 'quantifier') {
      const large = token.bounds.filter((bound) => bound > MAX_QUANTIFIER_BOUND);
      if (large.length > 0) problems.push(`quantifier \`${token.text}\` at ${token.index} counts to ${Math.max(...large)}, above the ${MAX_QUANTIFIER_BOUND} this project allows`);
    }
    if (token.kind === 'group' && token.opens) depth += 1;
    if (token.kind === 'close') depth -= 1;
    if (depth < 0) return [...problems, `an unmatched \`)\` at ${token.index}`];
  }
  if (depth > 0) problems.push('a group is never closed');
  const alternations = tokens.filter((token) => token.kind === 'alternation').length;
  if (alternations > MAX_ALTERNATIONS) problems.push(`${alternations} \`|\` branches, above the ${MAX_ALTERNATIONS} this project allows`);
  return problems;
}

/** The unsupported construct a token is, if it is one. */
function unsupportedConstruct(token: RegexToken): string | undefined {
  if (token.kind === 'escape') {
    const letter = token.text[1];
    if (/[1-9]/.test(letter) || letter === 'k') return 'backreference';
    if (letter === 'g') return 'backreference or subroutine call';
    if (letter === 'C') return 'single-byte directive';
    if (letter === 'R') return 'newline directive';
    if (letter === 'K') return 'match reset directive';
    return undefined;
  }
  if (token.kind === 'quantifier') return token.possessive ? 'possessive quantifier' : undefined;
  if (token.kind !== 'group') return undefined;
  const text = token.text;
  if (text === '(') return 'capturing group (write `(?:`)';
  if (text.startsWith('(*')) return 'backtracking control verb';
  if (text === '(?<' || text === "(?'" || text === '(?P<') return 'named capturing group';
  if (text.startsWith('(?P=')) return 'backreference';
  if (text === '(?=' || text === '(?!' || text === '(?<=' || text === '(?<!') return 'lookaround';
  if (text === '(?>') return 'atomic group';
  if (text.startsWith('(?(')) return 'conditional';
  if (text.startsWith('(?C')) return 'callout';
  if (text === '(?R)' || text.startsWith('(?&') || text.startsWith('(?P>') || /^\(\?[-+]?\d+\)$/.test(text)) return 'subroutine call or recursion';
  return undefined;
}
