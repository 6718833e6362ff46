/**
 * A static check of the lua/ scripts: every key a script hands to Redis must be one it received in
 * KEYS (Redis Cluster rejects cross-slot keys, Dragonfly undeclared ones), and integers reach Redis
 * formatted with string.format("%d") or untouched (Lua 5.4 would print a float as "1.7e+12").
 *
 * It tokenizes Lua (comments and strings handled), finds every redis.call/redis.pcall (and local
 * aliases of them), and checks each key argument against the command's key positions. It is
 * deliberately strict: a command it does not know, or a key it cannot prove comes from KEYS, is a
 * problem to look at, not something to let pass.
 *
 * It also finds what a script leaves unchecked by the ACL: Redis refuses a script's command only
 * when it is called, so a script that goes on after its first write names first, in
 * `refusedCommand("name", ...)` (redis.acl_check_cmd), every command it may call from then on.
 * Commands only: Redis checks a script's declared KEYS against the user's key permissions when
 * EVALSHA arrives, and every key a script touches is declared (the rule above). "From then on" is
 * read in source order; the first write itself, and a call already made before it, need no check
 * (refused, they stop the script before it wrote; the scripts' loops call their reads before their
 * writes, so this holds for them too).
 */

interface Token {
  type: "name" | "number" | "string" | "op";
  value: string;
  line: number;
}

const OPERATORS = ["...", "..", "==", "~=", "<=", ">=", "::", "//", "<<", ">>"];
const SINGLE_OPERATORS = "+-*/%^#&~|<>=(){}[];:,.";
const ARITHMETIC = new Set(["+", "-", "*", "/", "//", "%", "^"]);
const BINARY = new Set([...ARITHMETIC, "..", "==", "~=", "<=", ">=", "<", ">", "and", "or", "&", "|", "~", "<<", ">>"]);
const OPEN: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** Where the keys are among a command's arguments (1 = the first argument after the name). */
type KeyPositions = "none" | "all" | number[];

const SINGLE_KEY_COMMANDS = [
  "GET",
  "SET",
  "SETNX",
  "SETEX",
  "PSETEX",
  "GETSET",
  "GETDEL",
  "INCR",
  "INCRBY",
  "DECR",
  "DECRBY",
  "APPEND",
  "STRLEN",
  "EXPIRE",
  "PEXPIRE",
  "EXPIREAT",
  "PEXPIREAT",
  "PERSIST",
  "TTL",
  "PTTL",
  "TYPE",
  "HGET",
  "HSET",
  "HSETNX",
  "HMSET",
  "HMGET",
  "HDEL",
  "HEXISTS",
  "HGETALL",
  "HKEYS",
  "HVALS",
  "HLEN",
  "HINCRBY",
  "HINCRBYFLOAT",
  "HSTRLEN",
  "HSCAN",
  "SADD",
  "SREM",
  "SMEMBERS",
  "SISMEMBER",
  "SMISMEMBER",
  "SCARD",
  "SPOP",
  "SRANDMEMBER",
  "SSCAN",
  "ZADD",
  "ZREM",
  "ZSCORE",
  "ZMSCORE",
  "ZINCRBY",
  "ZCARD",
  "ZCOUNT",
  "ZRANK",
  "ZREVRANK",
  "ZRANGE",
  "ZREVRANGE",
  "ZRANGEBYSCORE",
  "ZREVRANGEBYSCORE",
  "ZREMRANGEBYSCORE",
  "ZREMRANGEBYRANK",
  "ZPOPMIN",
  "ZPOPMAX",
  "ZSCAN",
  "LPUSH",
  "RPUSH",
  "LPOP",
  "RPOP",
  "LLEN",
  "LRANGE",
  "LINDEX",
  "LREM",
  "LTRIM",
  "LSET",
];

export const KEY_POSITIONS: Record<string, KeyPositions> = {
  ...Object.fromEntries(SINGLE_KEY_COMMANDS.map((name) => [name, [1]])),
  // No key at all. PUBLISH's first argument is a channel, which Cluster does not slot-check.
  TIME: "none",
  PUBLISH: "none",
  // A shard channel: Cluster does slot-check it, against the declared keys' slot (the client builds
  // it with the queue's hash tag), but it is not a key, so it travels in ARGV.
  SPUBLISH: "none",
  ECHO: "none",
  PING: "none",
  // Every argument is a key.
  DEL: "all",
  UNLINK: "all",
  EXISTS: "all",
  TOUCH: "all",
  MGET: "all",
  // Two keys, then other arguments.
  RENAME: [1, 2],
  RENAMENX: [1, 2],
  SMOVE: [1, 2],
  RPOPLPUSH: [1, 2],
  LMOVE: [1, 2],
  COPY: [1, 2],
  ZRANGESTORE: [1, 2],
};

/** Commands that write, of those KEY_POSITIONS knows. */
export const WRITE_COMMANDS = new Set([
  "SET",
  "SETNX",
  "SETEX",
  "PSETEX",
  "GETSET",
  "GETDEL",
  "INCR",
  "INCRBY",
  "DECR",
  "DECRBY",
  "APPEND",
  "EXPIRE",
  "PEXPIRE",
  "EXPIREAT",
  "PEXPIREAT",
  "PERSIST",
  "HSET",
  "HSETNX",
  "HMSET",
  "HDEL",
  "HINCRBY",
  "HINCRBYFLOAT",
  "SADD",
  "SREM",
  "SPOP",
  "ZADD",
  "ZREM",
  "ZINCRBY",
  "ZREMRANGEBYSCORE",
  "ZREMRANGEBYRANK",
  "ZPOPMIN",
  "ZPOPMAX",
  "LPUSH",
  "RPUSH",
  "LPOP",
  "RPOP",
  "LREM",
  "LTRIM",
  "LSET",
  "DEL",
  "UNLINK",
  "RENAME",
  "RENAMENX",
  "SMOVE",
  "RPOPLPUSH",
  "LMOVE",
  "COPY",
  "ZRANGESTORE",
]);

/** The script's local function that checks commands with redis.acl_check_cmd before the first write. */
const ACL_CHECK_FUNCTION = "refusedCommand";

/** `<operation>-<number of keys>.lua`, or `<operation>-n.lua` for a script that takes any number. */
const SCRIPT_FILE_NAME = /^[A-Za-z]+-(\d+|n)\.lua$/;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const advance = (to: number): void => {
    for (let k = i; k < to; k++) if (source[k] === "\n") line++;
    i = to;
  };
  /** The end of a long bracket `[==[ ... ]==]` starting at `at`, or -1 when `at` does not open one. */
  const longBracketEnd = (at: number): number => {
    const open = /^\[(=*)\[/.exec(source.slice(at));
    if (!open) return -1;
    const close = source.indexOf(`]${open[1]}]`, at + open[0].length);
    if (close < 0) throw new Error(`unterminated long bracket at line ${line}`);
    return close + open[1].length + 2;
  };
  while (i < source.length) {
    const ch = source[i];
    if (/\s/.test(ch)) {
      advance(i + 1);
    } else if (source.startsWith("--", i)) {
      const end = longBracketEnd(i + 2);
      if (end >= 0) advance(end);
      else {
        const newline = source.indexOf("\n", i);
        advance(newline < 0 ? source.length : newline);
      }
    } else if (ch === '"' || ch === "'") {
      let k = i + 1;
      while (k < source.length && source[k] !== ch) k += source[k] === "\\" ? 2 : 1;
      if (k >= source.length) throw new Error(`unterminated string at line ${line}`);
      tokens.push({ type: "string", value: source.slice(i + 1, k), line });
      advance(k + 1);
    } else if (ch === "[" && longBracketEnd(i) >= 0) {
      const end = longBracketEnd(i);
      tokens.push({ type: "string", value: source.slice(i, end), line });
      advance(end);
    } else if (/[A-Za-z_]/.test(ch)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))![0];
      tokens.push({ type: "name", value: name, line });
      advance(i + name.length);
    } else if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      const number = /^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)/.exec(source.slice(i))![0];
      tokens.push({ type: "number", value: number, line });
      advance(i + number.length);
    } else {
      const op = OPERATORS.find((candidate) => source.startsWith(candidate, i)) ?? ch;
      if (op.length === 1 && !SINGLE_OPERATORS.includes(op)) throw new Error(`unexpected character ${op} at line ${line}`);
      tokens.push({ type: "op", value: op, line });
      advance(i + op.length);
    }
  }
  return tokens;
}

const is = (token: Token | undefined, value: string): boolean => token !== undefined && token.value === value && token.type !== "string";

/** Index of the bracket closing the one opened at `open`. */
function matching(tokens: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (tokens[k].type !== "op") continue;
    if (OPEN[tokens[k].value]) depth++;
    else if (Object.values(OPEN).includes(tokens[k].value)) {
      depth--;
      if (depth === 0) return k;
    }
  }
  throw new Error(`unbalanced ${tokens[open].value} at line ${tokens[open].line}`);
}

/** The end (exclusive) of the expression starting at `start`: a small Pratt-free scan, enough for scripts. */
function expressionEnd(tokens: Token[], start: number): number {
  let k = start;
  let expectOperand = true;
  while (k < tokens.length) {
    const token = tokens[k];
    if (expectOperand) {
      if (is(token, "-") || is(token, "not") || is(token, "#") || is(token, "~")) k++;
      else if (is(token, "(") || is(token, "{")) {
        k = matching(tokens, k) + 1;
        expectOperand = false;
      } else if (
        token.type !== "op" &&
        !["end", "then", "do", "else", "elseif", "local", "return", "if", "for", "while", "until", "function"].includes(token.value)
      ) {
        k++;
        expectOperand = false;
      } else break;
    } else if (is(token, ".") || is(token, ":")) k += 2;
    else if (is(token, "[") || is(token, "(")) k = matching(tokens, k) + 1;
    else if (BINARY.has(token.value) && token.type !== "string") {
      k++;
      expectOperand = true;
    } else break;
  }
  return k;
}

/** Splits tokens[from, to) at commas outside brackets. */
function splitArguments(tokens: Token[], from: number, to: number): Token[][] {
  const parts: Token[][] = [];
  let current: Token[] = [];
  for (let k = from; k < to; k++) {
    if (is(tokens[k], ",")) {
      parts.push(current);
      current = [];
    } else if (tokens[k].type === "op" && OPEN[tokens[k].value]) {
      const close = matching(tokens, k);
      current.push(...tokens.slice(k, close + 1));
      k = close;
    } else current.push(tokens[k]);
  }
  if (current.length > 0 || parts.length > 0) parts.push(current);
  return parts;
}

/** The tokens outside any bracket. */
function topLevel(tokens: Token[]): Token[] {
  const result: Token[] = [];
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k].type === "op" && OPEN[tokens[k].value]) k = matching(tokens, k);
    else result.push(tokens[k]);
  }
  return result;
}

/** `KEYS[n]`, or in a `-n` script `KEYS[i]` or `KEYS[i + n]` (each index is checked where KEYS is used). */
const isKeysIndex = (expr: Token[]): boolean =>
  is(expr[0], "KEYS") &&
  is(expr[1], "[") &&
  is(expr[expr.length - 1], "]") &&
  (isLiteralIndex(expr.slice(2, -1)) || isLoopIndex(expr.slice(2, -1)));

const isLiteralIndex = (index: Token[]): boolean => index.length === 1 && index[0].type === "number";

/** A loop variable, plus a literal: how a `-n` script walks its keys. */
const isLoopIndex = (index: Token[]): boolean =>
  (index.length === 1 && index[0].type === "name") ||
  (index.length === 3 && index[0].type === "name" && is(index[1], "+") && index[2].type === "number");

/** Arithmetic outside brackets; a minus directly before a number literal, in operand position, is a sign. */
function hasTopLevelArithmetic(expr: Token[]): boolean {
  const top = topLevel(expr);
  return top.some((token, k) => {
    if (token.type !== "op" || !ARITHMETIC.has(token.value)) return false;
    const previous = top[k - 1];
    const isSign = token.value === "-" && (!previous || (previous.type === "op" && previous.value !== ")" && previous.value !== "]"));
    return !(isSign && top[k + 1]?.type === "number");
  });
}

/** `math.xxx(...)` at the top of an expression: a Lua number that Redis would format itself. */
function hasTopLevelMathCall(expr: Token[]): boolean {
  const top = topLevel(expr);
  return top.some((token, k) => is(token, "math") && is(top[k + 1], "."));
}

interface Assignment {
  name: string;
  expr: Token[];
  line: number;
}

/** `local a, b = x, y`, `a, b = x, y` and `for i = ...`: each name with the expression it gets. */
function assignments(tokens: Token[]): Assignment[] {
  const found: Assignment[] = [];
  for (let k = 0; k < tokens.length; k++) {
    if (!is(tokens[k], "=") || tokens[k].type !== "op") continue;
    // Walk back over `name, name, ...` (attributes like <const> are not used in scripts).
    const names: string[] = [];
    let back = k - 1;
    while (back >= 0 && tokens[back].type === "name") {
      if (is(tokens[back - 1], ".") || is(tokens[back - 1], ":")) break;
      names.unshift(tokens[back].value);
      if (!is(tokens[back - 1], ",")) break;
      back -= 2;
    }
    if (names.length === 0) continue;
    let start = k + 1;
    for (const name of names) {
      const end = expressionEnd(tokens, start);
      found.push({ name, expr: tokens.slice(start, end), line: tokens[k].line });
      if (!is(tokens[end], ",")) break;
      start = end + 1;
    }
  }
  return found;
}

/** Checks one script; returns its problems as `file:line: text`, none when it is fine. */
export function checkScript(fileName: string, source: string): string[] {
  return analyseScript(fileName, source).problems;
}

/** What one script may still run, once it has written, without having named it in refusedCommand first. */
export function uncheckedAfterWrite(fileName: string, source: string): string[] {
  return analyseScript(fileName, source).unchecked;
}

interface Call {
  command: string;
  pcall: boolean;
  at: number;
  line: number;
}

/**
 * The problems of one script, the Redis commands it calls (in source order), for sanity checks, and
 * what it may run after its first write without an ACL check before it.
 */
export function analyseScript(fileName: string, source: string): { problems: string[]; commands: string[]; unchecked: string[] } {
  const problems: string[] = [];
  const commands: string[] = [];
  const calls: Call[] = [];
  const checks: Check[] = [];
  const fileMatch = SCRIPT_FILE_NAME.exec(fileName);
  if (!fileMatch) problems.push(`${fileName}: file name does not match <operation>-<number of keys>.lua`);
  const anyKeys = fileMatch?.[1] === "n";
  const keyCount = fileMatch && !anyKeys ? Number(fileMatch[1]) : 0;
  const report = (line: number, text: string): void => {
    problems.push(`${fileName}:${line}: ${text}`);
  };

  let tokens: Token[];
  try {
    tokens = tokenize(source);
  } catch (error) {
    return { problems: [...problems, `${fileName}: cannot tokenize: ${(error as Error).message}`], commands, unchecked: [] };
  }

  // Every KEYS[n]: a literal index within the file's key count.
  tokens.forEach((token, k) => {
    if (!is(token, "KEYS") || token.type !== "name") return;
    if (!is(tokens[k + 1], "[")) {
      if (!is(tokens[k - 1], "#")) report(token.line, "KEYS used other than as KEYS[n]");
      return;
    }
    const close = matching(tokens, k + 1);
    const index = tokens.slice(k + 2, close);
    if (anyKeys && isLoopIndex(index)) return;
    if (index.length !== 1 || index[0].type !== "number" || !/^\d+$/.test(index[0].value)) {
      report(token.line, `KEYS indexed by a non-literal (${index.map((t) => t.value).join(" ")})`);
    } else if (Number(index[0].value) < 1 || (!anyKeys && Number(index[0].value) > keyCount)) {
      report(token.line, `KEYS[${index[0].value}] is beyond the ${keyCount} keys of ${fileName}`);
    }
  });

  if (tokens.some((token) => token.type === "name" && token.value === "tostring")) {
    const line = tokens.find((token) => token.value === "tostring" && token.type === "name")!.line;
    report(line, 'tostring() in a script: format integers with string.format("%d", n)');
  }

  // What every name is assigned: key locals hold KEYS[n] and nothing else; computed numbers come
  // from arithmetic or math.*, and must not reach Redis unformatted.
  const all = assignments(tokens);
  const byName = new Map<string, Assignment[]>();
  for (const assignment of all) byName.set(assignment.name, [...(byName.get(assignment.name) ?? []), assignment]);
  const isKeyLocal = (name: string): boolean => (byName.get(name) ?? []).length > 0 && byName.get(name)!.every((a) => isKeysIndex(a.expr));
  const isComputedNumber = (name: string): boolean =>
    (byName.get(name) ?? []).some((a) => hasTopLevelArithmetic(a.expr) || hasTopLevelMathCall(a.expr));
  const callNames = new Set(
    all
      .filter((a) => a.expr.length === 3 && is(a.expr[0], "redis") && is(a.expr[1], ".") && ["call", "pcall"].includes(a.expr[2].value))
      .map((a) => a.name),
  );

  /** Why `expr` is not a key from KEYS, or null when it is one. */
  const notAKey = (expr: Token[]): string | null => {
    if (isKeysIndex(expr)) return null;
    if (expr.length === 1 && expr[0].type === "name" && isKeyLocal(expr[0].value)) return null;
    const text = expr.map((t) => (t.type === "string" ? JSON.stringify(t.value) : t.value)).join(" ");
    if (expr.some((t) => is(t, "..") && t.type === "op")) return `key built by .. concatenation: ${text}`;
    if (expr.length === 1 && expr[0].type === "string") return `string literal used as a key: ${text}`;
    if (expr.length === 1 && expr[0].type === "name") {
      const sources = byName.get(expr[0].value) ?? [];
      if (sources.some((a) => a.expr.some((t) => is(t, "..") && t.type === "op"))) {
        return `key ${text} is built by .. concatenation`;
      }
      return `key ${text} is not a local assigned directly (and only) from KEYS[n]`;
    }
    return `key is not KEYS[n] or a local assigned from KEYS[n]: ${text}`;
  };

  /** A key in a position that is no key: KEYS is for keys only (rsmq 0.12.4 passed timestamps there). */
  const keyAsValue = (expr: Token[]): string | null => {
    const top = topLevel(expr);
    const used = top.find(
      (t, k) => (is(t, "KEYS") && t.type === "name") || (t.type === "name" && isKeyLocal(t.value) && !is(top[k - 1], ".")),
    );
    return used ? `a key (${used.value}) used as a value, not in a key position` : null;
  };

  /** Why a non-key argument may reach Redis as a badly formatted number, or null. */
  const unformattedNumber = (expr: Token[]): string | null => {
    const text = expr.map((t) => (t.type === "string" ? JSON.stringify(t.value) : t.value)).join(" ");
    if (hasTopLevelArithmetic(expr)) return `arithmetic passed to Redis unformatted (use string.format("%d", ...)): ${text}`;
    if (hasTopLevelMathCall(expr)) return `math.* result passed to Redis unformatted (use string.format("%d", ...)): ${text}`;
    const pieces = topLevel(expr).filter((t) => t.type === "name" && isComputedNumber(t.value));
    // A name directly in the argument (alone or as a .. operand), not a field of something else.
    const bare = pieces.filter((t) => {
      const at = expr.indexOf(t);
      return !is(expr[at - 1], ".") && !is(expr[at - 1], ":") && !is(expr[at + 1], "(") && !is(expr[at + 1], "[") && !is(expr[at + 1], ".");
    });
    if (bare.length > 0) return `computed number ${bare[0].value} passed to Redis unformatted (use string.format("%d", ...))`;
    return null;
  };

  tokens.forEach((token, k) => {
    let argsOpen: number;
    if (is(token, "redis") && token.type === "name" && is(tokens[k + 1], ".") && ["call", "pcall"].includes(tokens[k + 2]?.value)) {
      if (!is(tokens[k + 3], "(")) {
        const alias = all.some((a) => a.expr[0] === token && a.expr.length === 3);
        if (!alias) report(token.line, "redis.call used other than by calling it directly");
        return;
      }
      argsOpen = k + 3;
    } else if (token.type === "name" && callNames.has(token.value) && !is(tokens[k - 1], ".")) {
      if (is(tokens[k + 1], "=")) return; // its declaration
      if (!is(tokens[k + 1], "(")) {
        report(token.line, `${token.value} (redis.call) used other than by calling it directly`);
        return;
      }
      argsOpen = k + 1;
    } else return;

    const args = splitArguments(tokens, argsOpen + 1, matching(tokens, argsOpen));
    const [nameArg, ...rest] = args;
    const isPcall = is(tokens[k + 2], "pcall") || all.some((a) => a.name === token.value && is(a.expr[2], "pcall"));
    if (!nameArg || nameArg.length !== 1 || nameArg[0].type !== "string") {
      report(token.line, "command name is not a string literal");
      return;
    }
    const command = nameArg[0].value.toUpperCase();
    commands.push(command);
    const positions = KEY_POSITIONS[command];
    if (positions === undefined) {
      report(token.line, `command ${command} is unknown to this check: add its key positions to KEY_POSITIONS`);
      return;
    }
    const keyPositions = positions === "none" ? [] : positions === "all" ? rest.map((_, p) => p + 1) : positions;
    if (positions === "all" && rest.length === 0) report(token.line, `${command} without keys`);
    rest.forEach((arg, p) => {
      const position = p + 1;
      if (keyPositions.includes(position)) {
        const why = notAKey(arg);
        if (why) report(token.line, `${command} argument ${position}: ${why}`);
      } else {
        const why = keyAsValue(arg) ?? unformattedNumber(arg);
        if (why) report(token.line, `${command} argument ${position}: ${why}`);
      }
    });
    for (const position of keyPositions) {
      if (position > rest.length) report(token.line, `${command} is missing its key argument ${position}`);
    }
    calls.push({ command, pcall: isPcall, at: k, line: token.line });
  });

  // A local function (the sweep a receive runs on an empty queue, a retention's expiry) is its own
  // flow: its writes are checked by the refusedCommand in its body, and are not the first write of
  // the script around it.
  const bodies = functionBodies(tokens);
  const unitOf = (at: number): number => {
    let unit = -1;
    bodies.forEach(([start, end], b) => {
      if (start < at && at < end) unit = b;
    });
    return unit;
  };

  // refusedCommand("name", ...): command names, each a literal, each named once in its flow.
  tokens.forEach((token, k) => {
    if (!is(token, ACL_CHECK_FUNCTION) || token.type !== "name" || !is(tokens[k + 1], "(") || is(tokens[k - 1], "function")) return;
    splitArguments(tokens, k + 2, matching(tokens, k + 1)).forEach((arg, a) => {
      if (arg.length !== 1 || arg[0].type !== "string" || KEY_POSITIONS[arg[0].value.toUpperCase()] === undefined) {
        report(token.line, `${ACL_CHECK_FUNCTION} argument ${a + 1} is not a known command name (${text(arg)})`);
        return;
      }
      const command = arg[0].value.toUpperCase();
      if (checks.some((check) => check.command === command && unitOf(check.at) === unitOf(k)))
        report(token.line, `${ACL_CHECK_FUNCTION} checks ${command} more than once`);
      checks.push({ command, at: k });
    });
  });

  const units = [-1, ...bodies.map((_, b) => b)];
  const unchecked = units.flatMap((unit) =>
    uncheckedCalls(
      calls.filter((call) => unitOf(call.at) === unit),
      checks.filter((check) => unitOf(check.at) === unit),
    ),
  );
  return { problems, commands, unchecked };
}

/** Where each function's body starts and ends (token indexes), outer functions before inner ones. */
function functionBodies(tokens: Token[]): Array<[number, number]> {
  const open: Array<{ at: number; isFunction: boolean }> = [];
  const bodies: Array<[number, number]> = [];
  tokens.forEach((token, k) => {
    if (token.type !== "name") return;
    if (["function", "if", "do", "repeat"].includes(token.value)) open.push({ at: k, isFunction: token.value === "function" });
    else if (token.value === "end" || token.value === "until") {
      const block = open.pop();
      if (block?.isFunction) bodies.push([block.at, k]);
    }
  });
  return bodies.sort((a, b) => a[0] - b[0]);
}

/** An argument as written, for naming it. */
function text(expr: Token[]): string {
  return expr.map((t) => (t.type === "string" ? JSON.stringify(t.value) : t.value)).join("");
}

/** A command a refusedCommand call names, and where. */
interface Check {
  command: string;
  at: number;
}

/** The commands called after the first write that no refusedCommand before that write names. */
function uncheckedCalls(calls: Call[], checks: Check[]): string[] {
  const ordinary = calls.filter((call) => !call.pcall);
  const first = ordinary.findIndex((call) => WRITE_COMMANDS.has(call.command));
  if (first < 0) return [];
  // The first write itself, refused, writes nothing; so neither does a command it repeats.
  const allowed = new Set(ordinary.slice(0, first + 1).map((call) => call.command));
  const after = [...new Set(ordinary.slice(first + 1).map((call) => call.command))];
  const checked = new Set(checks.filter((check) => check.at < ordinary[first].at).map((check) => check.command));
  return after
    .filter((command) => !allowed.has(command) && !checked.has(command))
    .map((command) => `line ${ordinary[first].line}+: ${command}`);
}

/** The KEYS[n] lines a script's header comment documents. */
export function documentedKeys(source: string): number[] {
  const header = /^\s*--\[(=*)\[([\s\S]*?)\]\1\]/.exec(source);
  if (!header) return [];
  return [...header[2].matchAll(/^\s*KEYS\[(\d+)\]/gm)].map((match) => Number(match[1]));
}
